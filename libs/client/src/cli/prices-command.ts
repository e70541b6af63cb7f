/**
 * `gw prices <instrument> <quantity> <currency> <tenor> [more streams…] [--group <uuid>]`: live prices. On a
 * terminal, a table redrawn in place (one row per stream, colour by status); in a pipe, one line per update;
 * with `--json`, one JSON object per update. `--count N` stops after N updates (scripts).
 */
import { map, merge, type Subscription } from 'rxjs';
import type { GatewayClient } from '../gateway-client.js';
import type { PriceRequest } from '../prices.js';
import type { PriceUpdate } from '../price-update.js';
import { parseCommand, positiveInt, usage, COMMON_FLAGS } from './options.js';
import { paint, printable, table, type Terminal } from './terminal.js';

export const PRICES_HELP = `gw prices <instrument> <quantity> <currency> <tenor> [<instrument> <quantity> <currency> <tenor> …]
  Live prices of one or more streams, starting with the last price of each.
  --group <uuid>   account group (default: the Natural group of the connector's key)
  --lease <s>      lease to ask for, 5-3600 seconds (renewed by itself), default 30
  --count <n>      stop after n updates
  --json           one JSON object per update (no table, no colour)
  e.g. gw prices BTC.USD 1 BTC T ETH.USD 10 ETH T`;

export const PRICES_FLAGS = {
  ...COMMON_FLAGS,
  group: { type: 'string' },
  lease: { type: 'string' },
  count: { type: 'string' },
} as const;

export interface PricesArgs {
  streams: Omit<PriceRequest, 'accountGroup'>[];
  group?: string;
  leaseSeconds?: number;
  count?: number;
}

export function pricesArgs(args: string[]): { parsed: PricesArgs; values: Record<string, unknown> } {
  const { values, positionals } = parseCommand('prices', args, PRICES_FLAGS);
  if (values['help'] === true) return { parsed: { streams: [] }, values };
  if (positionals.length === 0 || positionals.length % 4 !== 0) {
    throw usage('prices', 'give each stream as <instrument> <quantity> <currency> <tenor>, e.g. BTC.USD 1 BTC T');
  }
  const streams: PricesArgs['streams'] = [];
  for (let i = 0; i < positionals.length; i += 4) {
    const [instrument = '', quantity = '', currency = '', tenor = ''] = positionals.slice(i, i + 4);
    if (!/^[A-Za-z0-9]+\.[A-Za-z0-9]+$/.test(instrument)) {
      throw usage('prices', `instrument must be BASE.QUOTE, e.g. BTC.USD (got ${instrument.slice(0, 40)})`);
    }
    if (!/^\d+(\.\d{1,8})?$/.test(quantity)) {
      throw usage('prices', `quantity must be a plain decimal such as 1 or 0.5 (got ${quantity.slice(0, 40)})`);
    }
    streams.push({ instrument, quantity, currency, tenor });
  }
  const leaseSeconds = positiveInt('prices', 'lease', values['lease']);
  const count = positiveInt('prices', 'count', values['count']);
  const group = typeof values['group'] === 'string' ? values['group'] : undefined;
  return {
    parsed: {
      streams,
      ...(group !== undefined ? { group } : {}),
      ...(leaseSeconds !== undefined ? { leaseSeconds } : {}),
      ...(count !== undefined ? { count } : {}),
    },
    values,
  };
}

export async function runPrices(
  client: GatewayClient,
  args: PricesArgs,
  output: { json: boolean; terminal: Terminal; signal: AbortSignal },
): Promise<void> {
  const group = args.group ?? (await client.accountGroups.natural())?.uuid;
  if (group === undefined) throw usage('prices', 'the connector knows no account group; give one with --group <uuid>');
  const rows = args.streams.map((s) => ({ label: `${s.instrument} ${s.quantity} ${s.currency} ${s.tenor}` }));
  const latest = new Map<number, PriceUpdate>();
  const counts = new Map<number, number>();
  const live = output.terminal.isTty && !output.json;
  const draw = (): void => {
    const state = rows.map((r, i) => ({ ...r, update: latest.get(i), count: counts.get(i) ?? 0 }));
    output.terminal.redraw(priceTable(state, Date.now(), output.terminal));
  };
  let seen = 0;
  let subscription: Subscription | undefined;
  await new Promise<void>((resolve, reject) => {
    const ticker = live ? setInterval(draw, 1_000) : undefined;
    const finish = (error?: unknown): void => {
      clearInterval(ticker);
      subscription?.unsubscribe();
      output.signal.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = (): void => finish();
    output.signal.addEventListener('abort', onAbort);
    if (live) draw();
    const lease = args.leaseSeconds !== undefined ? { leaseSeconds: args.leaseSeconds } : {};
    const feeds = args.streams.map((stream, index) =>
      client.prices.watch({ ...stream, accountGroup: group }, lease).pipe(map((update) => ({ index, update }))),
    );
    subscription = merge(...feeds).subscribe({
      next: ({ index, update }) => {
        latest.set(index, update);
        counts.set(index, (counts.get(index) ?? 0) + 1);
        if (output.json) output.terminal.line(JSON.stringify(update));
        else if (live) draw();
        else output.terminal.line(priceLine(rows[index]?.label ?? '', update));
        seen += 1;
        if (args.count !== undefined && seen >= args.count) finish();
      },
      error: (error: unknown) => finish(error),
      complete: () => finish(),
    });
  });
}

/** The live table: one row per stream. */
export function priceTable(
  rows: { label: string; update: PriceUpdate | undefined; count: number }[],
  now: number,
  colours: Pick<Terminal, 'colour'>,
): string[] {
  const body = printable(rows).map(({ label, update, count }) => {
    if (update === undefined) return [label, paint(colours, 'grey', 'waiting'), '', '', '', '', '', '0'];
    const p = update.price;
    const state = statusOf(update);
    const colour = state === 'live' ? 'green' : state === 'stale' ? 'yellow' : 'red';
    return [
      label,
      paint(colours, colour, state),
      p.bid?.price ?? '',
      p.offer?.price ?? '',
      p.quoteId !== undefined ? shorten(p.quoteId, 12) : (p.code ?? ''),
      p.venueTimestamp !== undefined ? seconds(now - p.venueTimestamp) : '',
      p.quoteExpiresAt !== undefined && !update.stopped ? seconds(p.quoteExpiresAt - now) : '',
      String(count),
    ];
  });
  return table([['STREAM', 'STATUS', 'BID', 'OFFER', 'QUOTE', 'AGE', 'EXPIRES IN', 'UPDATES'], ...body]);
}

/** One plain line per update (a pipe or a file). */
export function priceLine(label: string, received: PriceUpdate): string {
  const update = printable(received); // the venue's quote ids and codes: never a control character to the terminal
  const p = update.price;
  const parts = [new Date(update.receivedAt).toISOString(), label, statusOf(update)];
  if (p.bid !== undefined) parts.push(`bid ${p.bid.price}`);
  if (p.offer !== undefined) parts.push(`offer ${p.offer.price}`);
  if (p.quoteId !== undefined) parts.push(`quote ${p.quoteId}`);
  if (p.code !== undefined) parts.push(`code ${p.code}`);
  if (update.fromLastValue) parts.push('(last value)');
  return parts.join(' ');
}

function statusOf(update: PriceUpdate): string {
  if (update.stopped) return 'stopped';
  if (update.expired) return 'expired';
  return update.price.status;
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.round(ms / 1000))}s`;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
