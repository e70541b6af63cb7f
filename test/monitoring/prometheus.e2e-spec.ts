/**
 * The connector's alerts proven on a real Prometheus (Debian's package): it scrapes a running connector
 * while a scenario runs, every series the connector's alert rules read has data, and when the venue
 * refuses the session the alerts that should fire are firing on that Prometheus and the others are not.
 * The rules are deploy/prometheus/rules/*.yml as shipped, with their `for:` waits shortened to seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort } from '#testing';
import {
  adminPost,
  askForStream,
  nextPrice,
  startConnectorStack,
  streamRequest,
  type ConnectorStack,
} from '../connector/connector-stack.js';

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe('connector alerts on a real Prometheus', () => {
  let stack: ConnectorStack;
  let prometheus: ChildProcess;
  let dir: string;
  let api: string;

  async function query(expr: string): Promise<Sample[]> {
    const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as { status: string; data?: { result: Sample[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error ?? response.status}`);
    return body.data?.result ?? [];
  }

  const firing = async (): Promise<string[]> =>
    (await query('ALERTS{alertstate="firing"}')).map((s) => s.metric['alertname'] ?? '').sort();

  beforeAll(async () => {
    stack = await startConnectorStack({ env: { PRICE_STALE_AFTER_MS: '1000', SESSION_HEALTH_GRACE_MS: '1000' } });
    dir = await mkdtemp(join(tmpdir(), 'gw-prom-'));
    const rulesDir = join(process.cwd(), 'deploy/prometheus/rules');
    const ruleFiles: string[] = [];
    for (const file of (await readdir(rulesDir)).filter((f) => f.endsWith('.yml'))) {
      const text = (await readFile(join(rulesDir, file), 'utf8')).replace(/for: \d+[smh]/g, 'for: 2s');
      await writeFile(join(dir, file), text);
      ruleFiles.push(join(dir, file));
    }
    const target = new URL(stack.connector.httpUrl).host;
    await writeFile(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        `rule_files: [${ruleFiles.map((f) => `'${f}'`).join(', ')}]`,
        'scrape_configs:',
        '  - job_name: connector',
        `    static_configs: [{ targets: ['${target}'] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    await eventually(
      async () => ((await query('up{job="connector"} == 1').catch(() => [])).length === 1 ? true : undefined),
      { what: 'Prometheus scraping the connector', timeoutMs: 20_000, intervalMs: 250 },
    );
  }, 40_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await stack?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('has data for every series the rules read, and fires nothing while all is well', async () => {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'prom', { leaseSeconds: 600 }));
    if (!reply.ok) throw new Error('stream refused');
    await nextPrice(stack.strategy, reply.subject, (p) => p.status === 'live');
    for (const series of [
      'connector_session_state{state="open"}',
      'connector_stale_streams',
      'connector_order_oldest_unresolved_seconds',
      'connector_order_outcome_publish_failures_total',
      'bus_connected',
      'jetstream_consumer_pending',
      'jetstream_info_errors',
    ]) {
      const samples = await eventually(
        async () => {
          const found = await query(series);
          return found.length > 0 ? found : undefined;
        },
        { what: `data for ${series}`, timeoutMs: 10_000, intervalMs: 250 },
      );
      expect(samples.length).toBeGreaterThan(0);
    }
    expect(await firing()).toEqual([]);
  }, 30_000);

  it('when the venue refuses the session: session-down and stale-prices fire; NATS and app alerts do not', async () => {
    await adminPost(stack.venue, 'faults/token', { count: 100_000 });
    await adminPost(stack.venue, 'faults/ws/drop');
    const alerts = await eventually(
      async () => {
        const now = await firing();
        return now.includes('GatewayVenueSessionDown') && now.includes('GatewayPricesStale') ? now : undefined;
      },
      { what: 'the session-down and stale-prices alerts firing', timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(alerts).not.toContain('GatewayNatsDisconnected');
    expect(alerts).not.toContain('GatewayAppDown');
    expect(alerts).not.toContain('GatewayOrderOutcomeStoreFailing');
  }, 40_000);
});
