/**
 * The venue's identifier of an order, minted by this app: unique per account by construction (time + 64 random
 * bits), within the venue's rules and ours (no `.`: it is a subject token of the outcome and a KV key token).
 */
import { randomBytes } from 'node:crypto';

export function mintClientRequestId(now: number): string {
  return `x${now.toString(36)}${randomBytes(8).toString('hex')}`;
}

/** What `mintClientRequestId` makes: anything else is not one of this app's orders. */
export const MINTED_CLIENT_REQUEST_ID = /^x[0-9a-z]{1,40}$/;
