/** The sandbox's operator API for the venue-api end-to-end suites. */
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';

export async function admin(venue: RunningSandbox, path: string, body: unknown, method = 'POST'): Promise<unknown> {
  const response = await fetch(`${venue.adminUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: method === 'POST' ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`admin ${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

/** A desk (OTC) trade in the Default group: BUY 0.00000001 BTC for 0.01 USD, for `/admin/trades/otc(-bulk)`. */
export function deskTrade(venue: RunningSandbox, clientRef: string): Record<string, string> {
  return {
    accountGroupUuid: venue.seed.defaultGroupUuid,
    instrument: 'BTC.USD',
    side: 'BUY',
    baseAmount: '0.00000001',
    quoteAmount: '0.01',
    price: '1000000',
    clientRef,
  };
}
