/**
 * `gw balances`, `gw trades`, `gw transactions`: the account as the account-sync app mirrors it. `gw trades
 * --all` and `gw transactions --all` read the whole history page by page (each record once, however many
 * arrive meanwhile) and show their progress (redrawn on a terminal, on stderr
 * elsewhere so a pipe gets only the rows). Each says first how current its rows are: `as of` a time, or
 * `STALE` when account-sync has not read them from the venue within its bound (they are the last known ones).
 * `--json`: `{"total","asOf","stale","records"}`.
 */
import type { BalanceState, Freshness, TransactionLeg } from '#contracts';
import type { KnownRecords, Page, PageProgress, TradeRecord } from '../account.js';
import { COMMON_FLAGS, positiveInt, type ClientSource } from './options.js';
import { paint, printable, table, type Terminal } from './terminal.js';

export const BALANCES_HELP = `gw balances [--group <uuid>] [--ccy <ccy>] [--non-zero]
  Balances per account group and currency (total, available, brokerage available), after the time
  account-sync last read them from the venue — STALE when that is too long ago (last known values).
  --json           one JSON document {total, asOf, stale, records}`;

export const TRADES_HELP = `gw trades [--group <uuid>] [--state <state>] [--limit <n>] [--all]
  Trades, newest first (default the 20 newest). --all reads the whole history, with progress.
  After the time account-sync last read them from the venue — STALE when that is too long ago.
  --json           one JSON document {total, asOf, stale, records}`;

export const TRANSACTIONS_HELP = `gw transactions [--group <uuid>] [--ccy <ccy>] [--state <state>] [--limit <n>] [--all]
  Transaction legs (deposits, withdrawals, trade debits and credits), newest first (default the 20 newest).
  --all reads the whole list, with progress, each leg once however many arrive meanwhile. STALE as above.
  --json           one JSON document {total, asOf, stale, records}`;

export const BALANCES_FLAGS = {
  ...COMMON_FLAGS,
  group: { type: 'string' },
  ccy: { type: 'string' },
  'non-zero': { type: 'boolean' },
} as const;
export const TRADES_FLAGS = {
  ...COMMON_FLAGS,
  group: { type: 'string' },
  state: { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
} as const;
export const TRANSACTIONS_FLAGS = {
  ...COMMON_FLAGS,
  group: { type: 'string' },
  ccy: { type: 'string' },
  state: { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
} as const;

type Output = { json: boolean; terminal: Terminal };

/**
 * The line before a query's rows: when account-sync last read them from the venue, or `STALE` — never a
 * stale value shown as live.
 */
export function freshnessLine(
  what: string,
  { asOf, stale }: Freshness,
  now: number,
  colours: Pick<Terminal, 'colour'>,
): string {
  const read =
    asOf === null
      ? undefined
      : `${new Date(asOf).toISOString()} (${Math.max(0, Math.round((now - asOf) / 1000))}s ago)`;
  if (!stale && read !== undefined) return paint(colours, 'grey', `${what} as of ${read}`);
  return paint(
    colours,
    'red',
    read === undefined
      ? `STALE: ${what} not read from the venue since account-sync started — the values an earlier run stored, not live (account-sync /health)`
      : `STALE: ${what} last read from the venue ${read} — last known values, not live (account-sync /health)`,
  );
}

/** Rows after their freshness line, or `--json` `{total, asOf, stale, records}`. */
function show<T>(output: Output, what: string, page: Page<T>, rows: (records: T[]) => string[]): void {
  const { total, asOf, stale, records } = page;
  if (output.json) {
    output.terminal.line(JSON.stringify({ total, asOf, stale, records }));
    return;
  }
  output.terminal.line(freshnessLine(what, page, Date.now(), output.terminal));
  for (const line of rows(records)) output.terminal.line(line);
}

function known<T>(records: KnownRecords<T>): Page<T> {
  return { total: records.length, records: [...records], asOf: records.asOf, stale: records.stale };
}

/** `--all`'s progress: redrawn on a terminal, on stderr elsewhere (a pipe gets only the rows). */
function progressOf(output: Output, what: string): PageProgress {
  return (read, total) => {
    const line = `reading ${what}: ${read} of ${total}`;
    if (output.terminal.isTty) output.terminal.redraw([paint(output.terminal, 'grey', line)]);
    else output.terminal.error(line);
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export async function runBalances(
  client: ClientSource,
  values: Record<string, unknown>,
  output: Output,
): Promise<void> {
  const query = defined({
    accountGroupUuid: text(values['group']),
    ccy: text(values['ccy']),
    nonZero: values['non-zero'] === true || undefined,
  });
  const balances = await (await client()).account.balances(query);
  show(output, 'balances', known(balances), balancesTable);
}

export function balancesTable(balances: BalanceState[]): string[] {
  if (balances.length === 0)
    return ['no balances yet — account-sync reads them within seconds of its start (`gw status`)'];
  return table([
    ['GROUP', 'NAME', 'CCY', 'BALANCE', 'AVAILABLE', 'BROKERAGE AVAILABLE'],
    ...printable(balances).map((b) => [
      b.accountGroupUuid,
      b.accountGroupName ?? '',
      b.ccy,
      b.balance,
      b.available,
      b.brokerageAvailable,
    ]),
  ]);
}

export async function runTrades(client: ClientSource, values: Record<string, unknown>, output: Output): Promise<void> {
  const query = defined({ accountGroupUuid: text(values['group']), state: text(values['state']) });
  const limit = positiveInt('trades', 'limit', values['limit']) ?? 20;
  const trades =
    values['all'] === true
      ? known(await (await client()).account.allTrades(query, progressOf(output, 'trades')))
      : await (await client()).account.trades({ ...query, limit });
  show(output, 'trades', trades, (records) => tradesTable(records, output.terminal));
}

export function tradesTable(trades: TradeRecord[], colours: Pick<Terminal, 'colour'>): string[] {
  if (trades.length === 0) return ['no trades'];
  return table([
    ['CREATED', 'TRADE', 'SIDE', 'TRADED', 'SETTLEMENT', 'PRICE', 'STATE', 'CLIENT REF'],
    ...printable(trades).map((t) => [
      t.createdAt ?? '',
      t.tradeRef ?? t.uuid,
      t.tradeSide,
      t.tradedAmount !== undefined ? `${t.tradedAmount.amount} ${t.tradedAmount.currency}` : '',
      t.settlementAmount !== undefined ? `${t.settlementAmount.amount} ${t.settlementAmount.currency}` : '',
      t.executedPrice ?? '',
      paint(
        colours,
        t.state === 'SETTLED' ? 'green' : t.state === 'FAILED' || t.state === 'CANCELLED' ? 'red' : 'yellow',
        t.state,
      ),
      t.clientRef ?? '',
    ]),
  ]);
}

export async function runTransactions(
  client: ClientSource,
  values: Record<string, unknown>,
  output: Output,
): Promise<void> {
  const query = defined({
    accountGroupUuid: text(values['group']),
    ccy: text(values['ccy']),
    state: text(values['state']),
  });
  const limit = positiveInt('transactions', 'limit', values['limit']) ?? 20;
  const page =
    values['all'] === true
      ? known(await (await client()).account.allTransactions(query, progressOf(output, 'transactions')))
      : await (await client()).account.transactions({ ...query, limit });
  show(output, 'transactions', page, (records) => transactionsTable(records, output.terminal));
}

export function transactionsTable(legs: TransactionLeg[], colours: Pick<Terminal, 'colour'>): string[] {
  if (legs.length === 0) return ['no transactions'];
  return table([
    ['TIME', 'TRANSACTION', 'TYPE', 'AMOUNT', 'STATE', 'BALANCE AFTER', 'TRADE'],
    ...printable(legs).map((leg) => {
      const at = leg.received ?? leg.timestampMillis;
      const colour =
        leg.transactionState === 'PROCESSED' ? 'green' : leg.transactionState === 'PENDING' ? 'yellow' : 'red';
      return [
        at !== undefined ? new Date(at).toISOString() : '',
        leg.uuid,
        leg.transactionType,
        `${leg.amount} ${leg.ccy}`,
        paint(colours, colour, leg.transactionState),
        leg.balanceAfter ?? '',
        leg.tradeRef ?? '',
      ];
    }),
  ]);
}
