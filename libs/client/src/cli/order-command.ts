/**
 * `gw buy|sell <instrument> <quantity> <currency> <tenor> --group <uuid> --strategy <id>`: one order on the
 * latest quote of that stream (the execution app picks the freshest live quote), followed to its outcome —
 * each state as it is entered, then the outcome. UNKNOWN and INDETERMINATE are said as such (never as a
 * failure); exit code 0 SUCCESS, 1 FAILED or refused, 3 outcome not known yet. `gw orders`: open orders.
 */
import type { GetOrderRequest, OrderAccepted, OrderCorrection, OrderEvent, OrderView } from '#contracts';
import type { GatewayClient } from '../gateway-client.js';
import { OutcomeUnknownError } from '../gateway-error.js';
import { answerOrInterrupt, interruption, INTERRUPTED } from './interrupt.js';
import { keyOption, parseCommand, positiveInt, usage, COMMON_FLAGS, type ClientSource } from './options.js';
import { paint, printable, table, type Terminal } from './terminal.js';
import { announceKey, EXIT_OUTCOME_UNKNOWN, unansweredJson, unansweredLines } from './unanswered-write.js';

export const ORDER_HELP = `gw buy|sell <instrument> <quantity> <currency> <tenor> --group <uuid> --strategy <id>
  Places one order on the latest quote of that price stream and follows it to its outcome.
  e.g. gw buy BTC.USD 0.01 BTC T --group <account group uuid> --strategy manual
  --worst-price <p>   refuse a price worse than p (quote currency per base unit)
  --send-within <s>   never send the order to the venue later than s seconds from now (it then ends FAILED
                      SEND_DEADLINE_PASSED, never sent); default: --timeout, so an order whose answer gw stopped
                      waiting for is never placed later
  --key <key>         idempotency key (a repeat answers the same order; default: a new one, printed on stderr
                      before the order is sent)
  --wait <seconds>    how long to wait for a final state (default 60); then the state it is in
  --timeout <seconds> how long to wait for the execution app's answer (default 15)
  --json              one JSON line per event, then the outcome
  Exit code: 0 SUCCESS, 1 FAILED or refused, 3 not final yet (INTENT_RECORDED/SENT/PENDING/UNKNOWN/INDETERMINATE: not a failure) or
  no answer at all (UNKNOWN: the order may have been placed — re-run with the same --key, never without it;
  \`gw orders --strategy <id> --key <key>\` looks it up).`;

export const ORDERS_HELP = `gw orders [--unresolved] [--strategy <id>] [--id <orderId> | --strategy <id> --key <key>]
  Open orders (not final), or with --unresolved those of unknown outcome; --id, or --strategy with the
  idempotency key, shows one order.
  --json           one JSON document`;

const ORDER_FLAGS = {
  ...COMMON_FLAGS,
  group: { type: 'string' },
  strategy: { type: 'string' },
  'worst-price': { type: 'string' },
  'send-within': { type: 'string' },
  key: { type: 'string' },
  wait: { type: 'string' },
} as const;

export interface OrderArgs {
  side: 'BUY' | 'SELL';
  instrument: string;
  quantity: string;
  currency: string;
  tenor: string;
  group: string;
  strategy: string;
  worstPrice?: string;
  /** `--send-within` in ms: the request's `sendBy` is now + this, taken when it is sent. */
  sendWithinMs?: number;
  key?: string;
  waitMs: number;
}

export function orderArgs(
  command: 'buy' | 'sell',
  args: string[],
): { parsed?: OrderArgs; values: Record<string, unknown> } {
  const { values, positionals } = parseCommand(command, args, ORDER_FLAGS);
  if (values['help'] === true) return { values };
  const [instrument, quantity, currency, tenor, ...rest] = positionals;
  if (instrument === undefined || quantity === undefined || currency === undefined || tenor === undefined) {
    throw usage(command, `gw ${command} needs <instrument> <quantity> <currency> <tenor>`);
  }
  if (rest.length > 0) throw usage(command, `unexpected argument "${rest[0]?.slice(0, 40)}"`);
  if (!/^\d+(\.\d+)?$/.test(quantity)) throw usage(command, 'quantity must be a plain decimal such as 0.01');
  const group = values['group'];
  const strategy = values['strategy'];
  if (typeof group !== 'string')
    throw usage(command, '--group <account group uuid> is required (`gw balances` lists them)');
  if (typeof strategy !== 'string') throw usage(command, '--strategy <id> is required (who places the order)');
  const wait = positiveInt(command, 'wait', values['wait']) ?? 60;
  const key = keyOption(command, values);
  const sendWithin = positiveInt(command, 'send-within', values['send-within']);
  return {
    values,
    parsed: {
      side: command === 'buy' ? 'BUY' : 'SELL',
      instrument,
      quantity,
      currency,
      tenor,
      group,
      strategy,
      ...(typeof values['worst-price'] === 'string' ? { worstPrice: values['worst-price'] } : {}),
      ...(sendWithin !== undefined ? { sendWithinMs: sendWithin * 1000 } : {}),
      ...(key !== undefined ? { key } : {}),
      waitMs: wait * 1000,
    },
  };
}

/** Places and follows; the exit code by outcome. */
export async function runOrder(
  client: GatewayClient,
  args: OrderArgs,
  output: { json: boolean; terminal: Terminal; signal?: AbortSignal; sendWithinMs: number },
): Promise<number> {
  const idempotencyKey = announceKey(args.key, output.terminal);
  const placed = client.orders.place(
    {
      strategyId: args.strategy,
      accountGroup: args.group,
      side: args.side,
      instrument: args.instrument,
      quantity: args.quantity,
      currency: args.currency,
      tenor: args.tenor,
      ...(args.worstPrice !== undefined ? { worstPrice: args.worstPrice } : {}),
      sendBy: Date.now() + (args.sendWithinMs ?? output.sendWithinMs),
      idempotencyKey,
    },
    { settleWaitMs: args.waitMs },
  );
  let accepted: OrderAccepted;
  try {
    accepted = await answerOrInterrupt(placed.accepted, output.signal, 'order', idempotencyKey);
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    const write = {
      what: 'order',
      idempotencyKey,
      lookUp: `gw orders --strategy ${args.strategy} --key ${idempotencyKey}`,
    };
    if (output.json) {
      const outcome = { ...unansweredJson(write, error), final: false, strategyId: args.strategy };
      output.terminal.line(JSON.stringify({ outcome }));
    } else {
      for (const line of unansweredLines('outcome: ', write, error, output.terminal)) output.terminal.line(line);
    }
    return EXIT_OUTCOME_UNKNOWN;
  }
  if (!output.json) {
    output.terminal.line(
      `order ${accepted.orderId} accepted${accepted.duplicate ? ' (same key: the existing order)' : ''}: ${describeRequest(accepted.order)}`,
    );
  }
  let latest = accepted.order;
  const subscription = placed.events.subscribe({
    next: (event) => {
      latest = event.order;
      output.terminal.line(output.json ? JSON.stringify(event) : eventLine(event, output.terminal));
    },
    error: () => undefined,
  });
  // interrupted: the state it is in now (not final: exit 3, followed on with `gw orders --id`)
  const followed = await Promise.race([placed.outcome, interruption(output.signal)]);
  const outcome = followed === INTERRUPTED ? latest : followed;
  subscription.unsubscribe();
  if (output.json) output.terminal.line(JSON.stringify({ outcome }));
  else for (const line of outcomeLines(outcome, output.terminal)) output.terminal.line(line);
  return outcome.state === 'SUCCESS' ? 0 : outcome.state === 'FAILED' ? 1 : EXIT_OUTCOME_UNKNOWN;
}

export function describeRequest(stored: OrderView): string {
  const order = printable(stored);
  return `${order.side} ${order.instrument ?? ''} on quote ${order.quoteId} for group ${order.accountGroup} (strategy ${order.strategyId})`;
}

export function eventLine(stored: OrderEvent, colours: Pick<Terminal, 'colour'>): string {
  const event = printable(stored);
  const at = new Date(event.at).toISOString().slice(11, 23);
  return `  ${at}  ${stateText(event.order, colours)}${event.order.status !== undefined ? ` (venue ${event.order.status})` : ''}`;
}

export function outcomeLines(stored: OrderView, colours: Pick<Terminal, 'colour'>): string[] {
  const order = printable(stored); // the venue's codes and messages: never a control character to the terminal
  const lines = [
    `outcome: ${stateText(order, colours)}${order.evidence !== undefined ? ` (from ${order.evidence})` : ''}`,
  ];
  if (order.fill !== undefined) {
    const f = order.fill;
    lines.push(
      `  ${order.side === 'BUY' ? 'bought' : 'sold'} ${f.baseAmount} ${f.baseCurrency} at ${f.price} ${f.quoteCurrency}, ${order.side === 'BUY' ? 'paid' : 'received'} ${f.quoteAmount} ${f.quoteCurrency}${f.tradeRef !== undefined ? `, trade ${f.tradeRef}` : ''}`,
    );
  }
  if (order.undone !== undefined) {
    const u = order.undone;
    lines.push(
      `  ${paint(colours, 'red', `UNDONE`)}: the venue ${u.state} trade ${u.tradeUuid} after it executed, at ${new Date(u.at).toISOString()}; the fill was taken back from the strategy's position and risk exposure`,
    );
  }
  if (order.code !== undefined && order.code !== '')
    lines.push(`  ${order.code}${order.message !== undefined ? `: ${order.message}` : ''}`);
  if (order.correction !== undefined) lines.push(`  ${correctionText(order.correction, order.side, colours)}`);
  if (!order.final) {
    // not with the connector yet (INTENT_RECORDED), with it and maybe at the venue (SENT), or there without an
    // answer: different promises, neither re-places it
    const course =
      order.state === 'INTENT_RECORDED'
        ? 'its command is not with the connector yet; not sent by its send deadline, it ends FAILED SEND_DEADLINE_PASSED'
        : order.state === 'SENT'
          ? 'its command is with the connector, which may have sent it to the venue; the gateway settles it either way'
          : 'the gateway keeps reconciling it with the venue';
    lines.push(`  not final yet: ${course}; it is never re-placed; follow with \`gw orders --id ${order.orderId}\``);
  }
  return lines;
}

function stateText(order: OrderView, colours: Pick<Terminal, 'colour'>): string {
  const colour =
    order.state === 'SUCCESS' ? 'green' : order.state === 'FAILED' ? 'red' : order.final ? 'bold' : 'yellow';
  return paint(colours, colour, order.state);
}

export function ordersTable(orders: OrderView[], colours: Pick<Terminal, 'colour'>): string[] {
  if (orders.length === 0) return ['no orders'];
  return table([
    ['ORDER', 'STRATEGY', 'SIDE', 'INSTRUMENT', 'STATE', 'STATUS', 'PRICE', 'UPDATED'],
    ...printable(orders).map((o) => [
      o.orderId,
      o.strategyId,
      o.side,
      o.instrument ?? '',
      o.undone !== undefined
        ? `${stateText(o, colours)} (undone)`
        : o.correction?.verdict === 'EXECUTED_AFTER_FAILED'
          ? `${stateText(o, colours)} (executed after)`
          : stateText(o, colours),
      o.status ?? '',
      o.fill?.price ?? '',
      new Date(o.updatedAt).toISOString(),
    ]),
  ]);
}

/** The venue contradicted the order's FAILED (spec-gaps K7): what its trade list showed. */
function correctionText(correction: OrderCorrection, side: 'BUY' | 'SELL', colours: Pick<Terminal, 'colour'>): string {
  const at = new Date(correction.at).toISOString();
  if (correction.verdict === 'FAILED_STANDS') {
    return `${paint(colours, 'yellow', 'CONTRADICTED')}: the venue later said SUCCESS (${correction.source}); no trade with its clientRef in the trade list, the FAILED stands (${at})`;
  }
  const f = correction.fill;
  const figures =
    f === undefined
      ? 'its figures unknown: not booked'
      : `${side === 'BUY' ? 'bought' : 'sold'} ${f.baseAmount} ${f.baseCurrency} at ${f.price} ${f.quoteCurrency}, booked in the strategy's position and risk exposure`;
  return `${paint(colours, 'red', 'EXECUTED AFTER FAILED')}: the venue later said SUCCESS (${correction.source}) and lists trade ${correction.tradeUuid ?? '?'}: ${figures} (${at})`;
}

export const ORDERS_FLAGS = {
  ...COMMON_FLAGS,
  unresolved: { type: 'boolean' },
  strategy: { type: 'string' },
  id: { type: 'string' },
  key: { type: 'string' },
} as const;

/** `--id <orderId>`, or `--strategy <id> --key <key>`: which one order to show (undefined: a list). */
function oneOrder(values: Record<string, unknown>): GetOrderRequest | undefined {
  const { id, strategy } = values;
  if (typeof id === 'string') return { orderId: id };
  const key = keyOption('orders', values);
  if (key === undefined) return undefined;
  if (typeof strategy !== 'string') {
    throw usage('orders', '--key <key> needs --strategy <id> (a key names an order per strategy)');
  }
  return { strategyId: strategy, idempotencyKey: key };
}

export async function runOrders(
  client: ClientSource,
  values: Record<string, unknown>,
  output: { json: boolean; terminal: Terminal },
): Promise<void> {
  const one = oneOrder(values);
  if (one !== undefined) {
    const order = await (await client()).orders.get(one);
    if (output.json) output.terminal.line(JSON.stringify(order));
    else {
      for (const line of [...ordersTable([order], output.terminal), ...outcomeLines(order, output.terminal)]) {
        output.terminal.line(line);
      }
    }
    return;
  }
  const orders = await (
    await client()
  ).orders.list({
    filter: values['unresolved'] === true ? 'unresolved' : 'open',
    ...(typeof values['strategy'] === 'string' ? { strategyId: values['strategy'] } : {}),
  });
  if (output.json) output.terminal.line(JSON.stringify(orders));
  else for (const line of ordersTable(orders, output.terminal)) output.terminal.line(line);
}
