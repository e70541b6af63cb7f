/** What the launcher prints once everything is up: one line per component, then three commands to try. */
import type { StackWiring } from './apps.js';
import type { Component } from './stack.js';

export interface BannerInput {
  components: readonly Component[];
  wiring: StackWiring;
  dataDir: string;
  logDir: string;
  foundEarlierState: boolean;
}

export function banner(input: BannerInput): string[] {
  const width = Math.max(...input.components.map((c) => c.name.length));
  const urlWidth = Math.max(...input.components.map((c) => c.url.length));
  const state = input.foundEarlierState ? 'earlier state found' : 'new';
  return [
    `gateway stack is up — data ${input.dataDir} (${state}), logs ${input.logDir}/<component>.log`,
    ...input.components.map((c) => `  ${c.name.padEnd(width)}  ${c.url.padEnd(urlWidth)}  ${c.detail}`),
    'try next:',
    ...tryNext(input.wiring).map((command) => `  ${command}`),
    'Ctrl-C stops everything.',
  ];
}

/** Three commands, with the options this stack needs when it does not run on the defaults. */
export function tryNext(wiring: StackWiring): string[] {
  const options = [
    wiring.natsUrl !== 'nats://127.0.0.1:4222' ? `--nats ${wiring.natsUrl}` : '',
    wiring.account !== 'default' ? `--account ${wiring.account}` : '',
    wiring.prefix !== 'gw.v1' ? `--prefix ${wiring.prefix}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const gw = (args: string): string => `npx gw ${args}${options ? ` ${options}` : ''}`;
  const group = wiring.venue.defaultGroupUuid !== undefined ? ` --group ${wiring.venue.defaultGroupUuid}` : '';
  return [gw(`prices BTC.USD 1 BTC T${group}`), gw(`buy BTC.USD 0.01 BTC T${group} --strategy manual`), gw('status')];
}
