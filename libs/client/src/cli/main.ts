#!/usr/bin/env node
/**
 * `gw`: the gateway from a terminal (docs/strategy-guide.md "CLI"). Commands: prices, status, streams, buy,
 * sell, orders, balances, trades, transactions, withdrawals, halt, resume, trading.
 * Errors say what went wrong and the next step; exit codes: 0 done, 1 failed, 2 bad usage, 3 outcome unknown
 * (`gw buy|sell`, `gw withdrawals submit`: not final yet, or no answer — re-run with the same --key).
 */
import 'reflect-metadata'; // the contract classes' decorators (class-validator) need it loaded first
import { DEFAULT_REQUEST_TIMEOUT_MS, GatewayClient } from '../gateway-client.js';
import { ClientErrorCode, GatewayError } from '../gateway-error.js';
import { failureDocument } from './failure.js';
import {
  commandLine,
  commonOptions,
  parseCommand,
  COMMON_FLAGS,
  type ClientSource,
  type CommonOptions,
} from './options.js';
import { pricesArgs, runPrices, PRICES_HELP } from './prices-command.js';
import {
  BALANCES_FLAGS,
  BALANCES_HELP,
  runBalances,
  runTrades,
  runTransactions,
  TRADES_FLAGS,
  TRADES_HELP,
  TRANSACTIONS_FLAGS,
  TRANSACTIONS_HELP,
} from './account-command.js';
import { ORDER_HELP, ORDERS_FLAGS, ORDERS_HELP, orderArgs, runOrder, runOrders } from './order-command.js';
import { runTrading, TRADING_FLAGS, TRADING_HELP } from './trading-command.js';
import { runWithdrawals, WITHDRAWALS_FLAGS, WITHDRAWALS_HELP } from './withdrawals-command.js';
import { runStatus, runStreams, STATUS_HELP, STREAMS_HELP } from './status-command.js';
import { processTerminal } from './terminal.js';
import { REQ_FLAGS, REQ_HELP, runKv, runReq } from './req-command.js';
import { EXIT_INTERRUPTED, interruption, INTERRUPTED } from './interrupt.js';
import { exitWhenWritten } from './exit.js';

const HELP = `gw — the brokerage gateway from a terminal

  gw prices <instrument> <quantity> <currency> <tenor> [--group <uuid>]   live prices
  gw status                                                               connector session, streams, consumer lag
  gw streams                                                              JetStream streams and consumers
  gw buy|sell <instrument> <qty> <ccy> <tenor> --group <uuid> --strategy <id>
                                                                          an order on the latest quote, to its outcome
  gw orders [--unresolved] [--id <orderId>]                               open orders, or one order
  gw balances | trades [--all] | transactions [--all]                     the account (account-sync)
  gw withdrawals [list|submit|cancel|get]                                 withdrawals
  gw halt|resume --reason <why>, gw trading                               the kill switch, trading states
  gw req <subject> [<json>], gw kv get <bucket> <key>                     any request / KV entry (for \`nats req|kv\`)

Every command takes, before or after it, --nats <url> (NATS_URL, default nats://127.0.0.1:4222), --account <name>
(ACCOUNT, default "default"), --prefix <subjects> (NATS_SUBJECT_PREFIX, default gw.v1), --timeout <seconds> (the
connection and each request, default 15) and --json (failures too: {"error":{"code","message","nextStep"}} on stdout, same exit code).
\`gw <command> --help\` for more.
Exit codes: 0 done, 1 failed (gw status: the venue session not open), 2 bad usage, 3 outcome unknown (gw buy|sell,
gw withdrawals submit: not final yet, or no answer, or Ctrl-C before the answer — re-run with the idempotency key
printed, --key <key>, never without it), 130 interrupted (Ctrl-C on any other command).`;

async function main(argv: string[]): Promise<number> {
  // `gw prices … | head -3`: the reader went away; that ends the command (even while the last output waits to
  // be taken, exitWhenWritten), it is not a failure
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  const terminal = processTerminal();
  const { command, args, json } = commandLine(argv);
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let client: GatewayClient | undefined;
  // connected on first use: each command checks its own arguments first (a usage error is exit 2, NATS or not)
  const lazily = (options: CommonOptions): ClientSource => {
    let connecting: Promise<GatewayClient> | undefined;
    return () => (connecting ??= connect(options).then((connected) => (client = connected)));
  };
  // reads and one-shot controls: an interrupt stops the wait at once, exit 130 (a halt already sent stays sent)
  const untilInterrupted = async (work: Promise<number>): Promise<number> => {
    work.catch(() => undefined); // interrupted first: its later failure is nobody's to report
    const done = await Promise.race([work, interruption(abort.signal)]);
    if (done !== INTERRUPTED) return done;
    terminal.error('gw: interrupted');
    return EXIT_INTERRUPTED;
  };
  try {
    switch (command) {
      case 'prices': {
        const { parsed, values } = pricesArgs(args);
        if (values['help'] === true) return help(PRICES_HELP);
        const options = commonOptions(values, process.env);
        client = await connect(options);
        await runPrices(client, parsed, { json: options.json, terminal, signal: abort.signal });
        return 0;
      }
      case 'status':
      case 'streams': {
        const flags = command === 'streams' ? ({ ...COMMON_FLAGS, all: { type: 'boolean' } } as const) : COMMON_FLAGS;
        const { values, positionals } = parseCommand(command, args, flags);
        if (values['help'] === true) return help(command === 'status' ? STATUS_HELP : STREAMS_HELP);
        if (positionals.length > 0)
          throw new GatewayError(
            ClientErrorCode.BadArgument,
            `gw ${command} takes no arguments`,
            `see \`gw ${command} --help\``,
          );
        const options = commonOptions(values, process.env);
        const source = lazily(options);
        return await untilInterrupted(
          (async () => {
            const connected = await source();
            if (command === 'status') return (await runStatus(connected, { json: options.json, terminal })) ? 0 : 1;
            await runStreams(connected, values['all'] === true, { json: options.json, terminal });
            return 0;
          })(),
        );
      }
      case 'buy':
      case 'sell': {
        const { parsed, values } = orderArgs(command, args);
        if (values['help'] === true || parsed === undefined) return help(ORDER_HELP);
        const options = commonOptions(values, process.env);
        client = await connect(options);
        return await runOrder(client, parsed, {
          json: options.json,
          terminal,
          signal: abort.signal,
          sendWithinMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        });
      }
      case 'orders':
      case 'balances':
      case 'trades':
      case 'transactions':
      case 'withdrawals':
      case 'halt':
      case 'resume':
      case 'trading': {
        const spec = SIMPLE[command];
        const { values, positionals } = parseCommand(command, args, spec.flags);
        if (values['help'] === true) return help(spec.help);
        if (command !== 'withdrawals' && positionals.length > 0) {
          throw new GatewayError(
            ClientErrorCode.BadArgument,
            `gw ${command} takes no arguments`,
            `see \`gw ${command} --help\``,
          );
        }
        const options = commonOptions(values, process.env);
        const source = lazily(options);
        const output = { json: options.json, terminal, signal: abort.signal };
        if (command === 'withdrawals' && positionals[0] === 'submit')
          return await runWithdrawals(source, values, positionals, output); // an interrupt there: UNKNOWN, exit 3
        const run = async (): Promise<number> => {
          if (command === 'orders') await runOrders(source, values, output);
          else if (command === 'balances') await runBalances(source, values, output);
          else if (command === 'trades') await runTrades(source, values, output);
          else if (command === 'transactions') await runTransactions(source, values, output);
          else if (command === 'withdrawals') return runWithdrawals(source, values, positionals, output);
          else await runTrading(source, command, values, output);
          return 0;
        };
        return await untilInterrupted(run());
      }
      case 'req':
      case 'kv': {
        const { values, positionals } = parseCommand(command, args, REQ_FLAGS);
        if (values['help'] === true) return help(REQ_HELP);
        const options = commonOptions(values, process.env);
        const source = lazily(options);
        return await untilInterrupted(
          command === 'kv'
            ? runKv(source, positionals, { terminal })
            : runReq(source, positionals, {
                terminal,
                timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
              }),
        );
      }
      case undefined:
        if (json) throw new GatewayError(ClientErrorCode.BadArgument, 'no command given', 'see `gw --help`');
        return help(HELP);
      case 'help':
      case '--help':
      case '-h':
        return help(HELP);
      default:
        throw new GatewayError(
          ClientErrorCode.BadArgument,
          `unknown command "${command.slice(0, 40)}"`,
          'see `gw --help`',
        );
    }
  } catch (error) {
    // --json: the failure is a JSON document on stdout too (the text stays on stderr), with the same exit code
    if (json) terminal.line(JSON.stringify(failureDocument(error)));
    if (error instanceof GatewayError) {
      terminal.error(`gw: ${error.message}${error.code !== ClientErrorCode.BadArgument ? ` (${error.code})` : ''}`);
      if (error.nextStep !== undefined) terminal.error(`  next: ${error.nextStep}`);
      return error.code === ClientErrorCode.BadArgument ? 2 : 1;
    }
    terminal.error(`gw: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await client?.close().catch(() => undefined);
  }
}

const SIMPLE = {
  orders: { flags: ORDERS_FLAGS, help: ORDERS_HELP },
  balances: { flags: BALANCES_FLAGS, help: BALANCES_HELP },
  trades: { flags: TRADES_FLAGS, help: TRADES_HELP },
  transactions: { flags: TRANSACTIONS_FLAGS, help: TRANSACTIONS_HELP },
  withdrawals: { flags: WITHDRAWALS_FLAGS, help: WITHDRAWALS_HELP },
  halt: { flags: TRADING_FLAGS, help: TRADING_HELP },
  resume: { flags: TRADING_FLAGS, help: TRADING_HELP },
  trading: { flags: TRADING_FLAGS, help: TRADING_HELP },
} as const;

function connect(options: CommonOptions): Promise<GatewayClient> {
  return GatewayClient.connect({
    servers: options.nats,
    account: options.account,
    prefix: options.prefix,
    name: 'gw-cli',
    connectTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(options.requestTimeoutMs !== undefined
      ? { requestTimeoutMs: options.requestTimeoutMs, venueWriteTimeoutMs: options.requestTimeoutMs }
      : {}),
  });
}

function help(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => exitWhenWritten(code),
  (error: unknown) => {
    process.stderr.write(`gw: ${String(error)}\n`);
    exitWhenWritten(1);
  },
);
