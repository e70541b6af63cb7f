import { describe, expect, it } from '@jest/globals';
import type { StackWiring } from './apps.js';
import { banner, tryNext } from './banner.js';

const wiring: StackWiring = {
  natsUrl: 'nats://127.0.0.1:4222',
  prefix: 'gw.v1',
  account: 'default',
  sessionId: 'gw-1',
  host: '127.0.0.1',
  logLevel: 'info',
  webhookPort: 3013,
  dataDir: '/d',
  venue: {
    restUrl: 'http://127.0.0.1:8080',
    wsUrl: 'ws://127.0.0.1:8080/svc/ws/ws-client',
    ipsUrl: 'http://127.0.0.1:8080/ips.json',
    apiKey: 'k',
    apiSecret: 'c2VjcmV0',
    signatureEncoding: 'base64',
    defaultGroupUuid: 'g-1',
  },
};

describe('the banner', () => {
  it('one line per component, three commands, no secret', () => {
    const lines = banner({
      components: [
        { name: 'nats-server', url: 'nats://127.0.0.1:4222', detail: 'JetStream' },
        { name: 'connector', url: 'http://127.0.0.1:3001/health', detail: 'account default' },
      ],
      wiring,
      dataDir: '/d',
      logDir: '/d/logs',
      foundEarlierState: true,
    });
    expect(lines).toEqual([
      'gateway stack is up — data /d (earlier state found), logs /d/logs/<component>.log',
      '  nats-server  nats://127.0.0.1:4222         JetStream',
      '  connector    http://127.0.0.1:3001/health  account default',
      'try next:',
      '  npx gw prices BTC.USD 1 BTC T --group g-1',
      '  npx gw buy BTC.USD 0.01 BTC T --group g-1 --strategy manual',
      '  npx gw status',
      'Ctrl-C stops everything.',
    ]);
    expect(lines.join('\n')).not.toContain('c2VjcmV0');
  });

  it('commands carry the options of a stack off the defaults', () => {
    expect(tryNext({ ...wiring, natsUrl: 'nats://127.0.0.1:5222', account: 'acme' })).toEqual([
      'npx gw prices BTC.USD 1 BTC T --group g-1 --nats nats://127.0.0.1:5222 --account acme',
      'npx gw buy BTC.USD 0.01 BTC T --group g-1 --strategy manual --nats nats://127.0.0.1:5222 --account acme',
      'npx gw status --nats nats://127.0.0.1:5222 --account acme',
    ]);
  });
});
