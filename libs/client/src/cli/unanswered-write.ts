/**
 * An order or withdrawal the CLI sent with an idempotency key and got no answer for: its outcome is UNKNOWN
 * (it may have been carried out), never a failure. The key is said before the request goes out, and on no
 * answer the way on is said with it: re-run with the same `--key` (the same key answers the same order or
 * withdrawal, never a second one) or look it up by the key. Exit code 3, like an order of unknown outcome.
 */
import { randomUUID } from 'node:crypto';
import type { OutcomeUnknownError } from '../gateway-error.js';
import { paint, type Terminal } from './terminal.js';

/** `gw buy|sell` and `gw withdrawals submit` exit with this when the outcome is not known. */
export const EXIT_OUTCOME_UNKNOWN = 3;

export interface UnansweredWrite {
  /** `order`, `withdrawal`. */
  what: string;
  idempotencyKey: string;
  /** The command that looks it up by its key, e.g. `gw withdrawals get --key k`. */
  lookUp: string;
}

/** The key to send: the caller's, or a new one, said on stderr before anything is sent. */
export function announceKey(given: string | undefined, terminal: Pick<Terminal, 'error'>): string {
  const key = given ?? randomUUID();
  terminal.error(
    given === undefined
      ? `idempotency key ${key} (generated: a retry must pass --key ${key})`
      : `idempotency key ${key}`,
  );
  return key;
}

/** What to do next, in one sentence (the JSON `next`, the last human lines). */
export function nextStep(write: UnansweredWrite): string {
  return `never ask again with a new key: re-run this command with --key ${write.idempotencyKey} (the same key answers the same ${write.what}, never a second one), or look it up: ${write.lookUp}`;
}

/** Plain lines for a person, the first after `heading` (`outcome: `, `withdrawal (key k): `). */
export function unansweredLines(
  heading: string,
  write: UnansweredWrite,
  error: OutcomeUnknownError,
  colours: Pick<Terminal, 'colour'>,
): string[] {
  return [
    `${heading}${paint(colours, 'yellow', 'UNKNOWN')} — ${noAnswer(error)}: the ${write.what} may or may not have been taken`,
    `  next: ${nextStep(write)}`,
  ];
}

/** The fields a script reads: `state` UNKNOWN as an order's or a withdrawal's own, the key, the way on. */
export function unansweredJson(write: UnansweredWrite, error: OutcomeUnknownError): Record<string, unknown> {
  return {
    state: 'UNKNOWN',
    idempotencyKey: write.idempotencyKey,
    code: error.code,
    message: `${noAnswer(error)}: the ${write.what} may or may not have been taken`,
    next: nextStep(write),
  };
}

function noAnswer(error: OutcomeUnknownError): string {
  return error.cause instanceof Error ? error.cause.message : error.message;
}
