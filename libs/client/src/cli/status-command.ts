/**
 * `gw status`: is the gateway up for one account? The connector's session (from its last-value status), then
 * the gateway's streams of that account with their consumers and lag — what `nats stream report` would show;
 * there is no NATS CLI on these machines. `gw streams`: the streams alone, every account's. Both take `--json`.
 */
import type { ConnectorStatus } from '#contracts';
import type { GatewayClient } from '../gateway-client.js';
import type { StreamSummary } from '../inspect.js';
import { paint, printable, table, type Terminal } from './terminal.js';

export const STATUS_HELP = `gw status
  The connector's venue session, then the account's JetStream streams and consumers with their lag
  (--account / ACCOUNT; \`gw streams\` lists every account's).
  Not open: for how long (since it last was, or since the connector started) and the last failure to open it
  (token refused, throttled or failed; connection refused or failed) with its status or reason.
  Exit code 0 when the session is open, 1 otherwise — also while it reconnects, or with no connector (for scripts
  and probes).
  --json           one JSON document`;

export const STREAMS_HELP = `gw streams
  The gateway's JetStream streams (messages, bytes) and their consumers with their lag.
  --all            every stream on the server, not only the gateway's (GW_*)
  --json           one JSON document`;

/** Prints the status; true when the connector's venue session is open (the exit code says so too). */
export async function runStatus(
  client: GatewayClient,
  output: { json: boolean; terminal: Terminal },
): Promise<boolean> {
  const account = client.context.subjects.account;
  const [connector, streams] = await Promise.all([
    client.status.connector(),
    client.inspect.streams().then((all) => accountStreams(all, account)),
  ]);
  if (output.json) {
    output.terminal.line(JSON.stringify({ account, connector: connector ?? null, streams }));
  } else {
    for (const line of connectorLines(account, connector, Date.now(), output.terminal)) output.terminal.line(line);
    output.terminal.line('');
    const none = `no streams of account ${account} on this NATS — its apps create them when they start (\`gw streams\`: every account's)`;
    for (const line of streamLines(streams, output.terminal, none)) output.terminal.line(line);
  }
  return connector?.sessionState === 'open';
}

export async function runStreams(
  client: GatewayClient,
  all: boolean,
  output: { json: boolean; terminal: Terminal },
): Promise<void> {
  const streams = await client.inspect.streams(all ? '' : 'GW_');
  if (output.json) output.terminal.line(JSON.stringify(streams));
  else for (const line of streamLines(streams, output.terminal)) output.terminal.line(line);
}

export function connectorLines(
  account: string,
  published: ConnectorStatus | undefined,
  now: number,
  colours: Pick<Terminal, 'colour'>,
): string[] {
  const status = printable(published);
  if (status === undefined) {
    return [
      `connector (account ${account}): ${paint(colours, 'red', 'no status')} — not running, or stopped more than three status intervals ago`,
      '  next: start the stack (`npm start`), or check --account / ACCOUNT',
    ];
  }
  const colour = status.sessionState === 'open' ? 'green' : status.sessionState === 'stopped' ? 'red' : 'yellow';
  const age = Math.max(0, Math.round((now - status.publishedAt) / 1000));
  const { live, stale, pending } = status.subscriptions;
  return [
    `connector (account ${account}): session ${paint(colours, colour, status.sessionState)}${sessionCourse(status, now)}, ${status.reconnects} reconnects`,
    `  price streams: ${live} live, ${stale} stale, ${pending} pending; last price ${status.lastPriceAgeMs !== undefined ? `${Math.round(status.lastPriceAgeMs / 1000)}s ago` : 'none yet'}; status ${age}s old`,
    ...(status.orderQueuePaceMs !== undefined
      ? [
          `  orders: one leaves every ${status.orderQueuePaceMs} ms now (an order with N queued ahead waits ≈ (N + 1) × that)`,
        ]
      : []),
  ];
}

/**
 * How long the session has not been open and why, or, open (or from a connector older than these fields), since
 * when it is in its state. `since` alone misleads on a session that never opens: it is the start of its latest
 * backoff, a few seconds ago at every look.
 */
function sessionCourse(status: ConnectorStatus, now: number): string {
  if (status.sessionState === 'open' || status.notOpenSince === undefined)
    return ` since ${new Date(status.since).toISOString()}`;
  const down = `, down for ${duration(now - status.notOpenSince)}`;
  const failure =
    status.lastFailure !== undefined
      ? `last failure ${duration(now - status.lastFailure.at)} ago: ${FAILURE_TEXT[status.lastFailure.code] ?? status.lastFailure.code}, ${status.lastFailure.reason}`
      : undefined;
  if (status.everOpen === false)
    return `${down}, never open since the connector started${failure !== undefined ? ` (${failure})` : ''}`;
  const since = `since ${new Date(status.notOpenSince).toISOString()}`;
  return `${down} (${failure !== undefined ? `${since}; ${failure}` : since})`;
}

const FAILURE_TEXT: Record<string, string> = {
  'token-refused': 'token refused',
  'token-throttled': 'token fetch throttled',
  'token-failed': 'token fetch failed',
  'socket-refused': 'connection refused',
  'socket-failed': 'connection failed',
};

/** `45s`, `3m12s`, `1h02m03s`. */
function duration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h${two(m)}m${two(sec)}s`;
  if (m > 0) return `${m}m${two(sec)}s`;
  return `${sec}s`;
}

/**
 * The streams of one account: the gateway names each `GW_<STEM>_<account>` (the stem upper-case words, the
 * account with any character outside [A-Za-z0-9_-] as `_`), so another account's never shows under this one.
 */
export function accountStreams(streams: StreamSummary[], account: string): StreamSummary[] {
  const suffix = `_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return streams.filter(
    ({ name }) => name.endsWith(suffix) && GATEWAY_STEM.test(name.slice(0, name.length - suffix.length)),
  );
}

/** `GW_ORDER_COMMANDS`, `GW_ACCT_TRANSACTIONS`: what precedes the account in a gateway stream's name. */
const GATEWAY_STEM = /^GW_[A-Z]+(?:_[A-Z]+)*$/;

export function streamLines(
  streams: StreamSummary[],
  colours: Pick<Terminal, 'colour'>,
  none = 'no gateway streams on this NATS yet — the connector creates them when it starts',
): string[] {
  if (streams.length === 0) return [none];
  const rows: string[][] = [
    ['STREAM / CONSUMER', 'STORAGE', 'MESSAGES', 'BYTES', 'PENDING', 'ACK PENDING', 'REDELIVERED'],
  ];
  for (const stream of printable(streams)) {
    rows.push([
      stream.name,
      `${stream.storage}/${stream.retention}`,
      String(stream.messages),
      String(stream.bytes),
      '',
      '',
      '',
    ]);
    for (const c of stream.consumers) {
      const lag = c.pending + c.ackPending > 0 ? paint(colours, 'yellow', String(c.pending)) : String(c.pending);
      rows.push([
        `  ${c.name}${c.durable ? '' : ' (ephemeral)'}`,
        '',
        '',
        '',
        lag,
        String(c.ackPending),
        String(c.redelivered),
      ]);
    }
  }
  return table(rows);
}
