/**
 * `gw halt` (the kill switch: every new order refused) and `gw resume`, and `gw trading` (the states). Each
 * change names who and why (`--reason`, `--by`, default the user), kept in the execution app's audit stream.
 */
import { userInfo } from 'node:os';
import type { TradingStateEntry, TradingStatesReply, UnsetTradingStateEntry } from '#contracts';
import { COMMON_FLAGS, usage, type ClientSource } from './options.js';
import { paint, printable, type Terminal } from './terminal.js';

export const TRADING_HELP = `gw halt --reason <why> [--by <who>]     halt all trading (the kill switch)
gw resume --reason <why> [--by <who>]   trading active again
gw trading                              the trading states (global, account groups, strategies)
  --json           one JSON document`;

export const TRADING_FLAGS = { ...COMMON_FLAGS, reason: { type: 'string' }, by: { type: 'string' } } as const;

type Output = { json: boolean; terminal: Terminal };

export async function runTrading(
  client: ClientSource,
  command: 'halt' | 'resume' | 'trading',
  values: Record<string, unknown>,
  output: Output,
): Promise<void> {
  if (command === 'trading') {
    const states = await (await client()).trading.states();
    if (output.json) output.terminal.line(JSON.stringify(states));
    else for (const line of tradingLines(states, output.terminal)) output.terminal.line(line);
    return;
  }
  const reason = values['reason'];
  if (typeof reason !== 'string' || reason === '')
    throw usage(command, `--reason <why> is required (kept in the audit)`);
  const by = typeof values['by'] === 'string' ? values['by'] : safeUser();
  const entry =
    command === 'halt'
      ? await (await client()).trading.halt({ by, reason })
      : await (await client()).trading.resume({ by, reason });
  if (output.json) output.terminal.line(JSON.stringify(entry));
  else output.terminal.line(`trading ${entryText(entry, output.terminal)}`);
}

function safeUser(): string {
  try {
    return userInfo().username || 'gw-cli';
  } catch {
    return 'gw-cli';
  }
}

function entryText(stored: TradingStateEntry | UnsetTradingStateEntry, colours: Pick<Terminal, 'colour'>): string {
  const entry = printable(stored); // who and why are anyone's text: never a control character to the terminal
  const colour = entry.state === 'ACTIVE' ? 'green' : entry.state === 'HALTED' ? 'red' : 'yellow';
  const scope = entry.scope === 'global' ? 'global' : `${entry.scope} ${entry.id ?? ''}`;
  const who = 'by' in entry ? ` — by ${entry.by} at ${entry.at}: ${entry.reason}` : '';
  return `${scope}: ${paint(colours, colour, entry.state)}${who}`;
}

export function tradingLines(states: TradingStatesReply, colours: Pick<Terminal, 'colour'>): string[] {
  const lines = [];
  if (!states.readable)
    lines.push(paint(colours, 'red', 'trading states cannot be read: every order is refused (fail closed)'));
  lines.push(entryText(states.global, colours));
  for (const entry of [...states.accountGroups, ...states.strategies]) lines.push(`  ${entryText(entry, colours)}`);
  return lines;
}
