/**
 * Options every command takes, from flags or the environment the apps use (NATS_URL, ACCOUNT,
 * NATS_SUBJECT_PREFIX), with the stack's defaults.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { GatewayClient } from '../gateway-client.js';
import { ClientErrorCode, GatewayError } from '../gateway-error.js';

export interface CommonOptions {
  nats: string;
  account: string;
  prefix: string;
  json: boolean;
  /** Bound on each gateway request (`--timeout <seconds>`); the SDK's default when absent. */
  requestTimeoutMs?: number;
}

export const COMMON_FLAGS = {
  nats: { type: 'string' },
  account: { type: 'string' },
  prefix: { type: 'string' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export function commonOptions(values: Record<string, unknown>, env: NodeJS.ProcessEnv): CommonOptions {
  return {
    nats: text(values['nats']) ?? env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    account: text(values['account']) ?? env['ACCOUNT'] ?? 'default',
    prefix: text(values['prefix']) ?? env['NATS_SUBJECT_PREFIX'] ?? 'gw.v1',
    json: values['json'] === true,
    ...(values['timeout'] !== undefined
      ? { requestTimeoutMs: (positiveInt('gw', 'timeout', values['timeout']) ?? 0) * 1000 }
      : {}),
  };
}

/**
 * The command and its arguments. Common options may come before the command too (`gw --nats URL status`): they
 * are moved after it, where each command parses them. `json`: `--json` anywhere, so a failure before or during
 * parsing is still answered as JSON.
 */
export function commandLine(argv: string[]): { command: string | undefined; args: string[]; json: boolean } {
  let at = 0;
  while (at < argv.length) {
    const name = /^--([a-z]+)(=.*)?$/.exec(argv[at] ?? '');
    const flag = name?.[1];
    if (flag === undefined || flag === 'help' || !Object.hasOwn(COMMON_FLAGS, flag)) break;
    const takesValue = COMMON_FLAGS[flag as keyof typeof COMMON_FLAGS].type === 'string' && name?.[2] === undefined;
    at += takesValue ? 2 : 1;
  }
  const [command, ...rest] = argv.slice(at);
  return { command, args: [...rest, ...argv.slice(0, at)], json: argv.includes('--json') };
}

/** `parseArgs`, its errors turned into a usage error naming the command. */
export function parseCommand<O extends ParseArgsConfig['options']>(
  command: string,
  args: string[],
  options: O,
): { values: Record<string, unknown>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: parsed.values as Record<string, unknown>, positionals: parsed.positionals };
  } catch (error) {
    // node's own text spans lines ("…ambiguous.\nDid you forget…"): one line, never `\u000a` on the terminal
    const message = error instanceof Error ? error.message : String(error);
    throw usage(command, message.split(/\r?\n/).join(' '));
  }
}

/**
 * `--key <key>` (an idempotency key), absent or not empty: an empty one is refused here, with the other bad
 * arguments (exit 2), not sent to be refused by the gateway.
 */
export function keyOption(command: string, values: Record<string, unknown>): string | undefined {
  const key = values['key'];
  if (typeof key !== 'string') return undefined;
  if (key === '') throw usage(command, '--key must not be empty (an idempotency key, or leave --key out)');
  return key;
}

export function usage(command: string, message: string): GatewayError {
  const help = command === 'gw' ? 'gw --help' : `gw ${command} --help`;
  return new GatewayError(ClientErrorCode.BadArgument, message, `see \`${help}\``);
}

/** A positive integer flag (`--count 5`). */
/** The client, connected on first use: a command checks its arguments first (a usage error never waits on NATS). */
export type ClientSource = () => Promise<GatewayClient>;

export function positiveInt(command: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,8}$/.test(value)) {
    throw usage(command, `--${name} must be a positive whole number`);
  }
  return Number(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
