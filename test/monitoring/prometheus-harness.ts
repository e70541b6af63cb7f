/**
 * A real Prometheus (Debian's package, installed by deploy/install.sh) for the monitoring proofs: it loads
 * the shipped alert rules (deploy/prometheus/rules/*.yml) with their `for:` waits shortened to seconds and,
 * where a scenario cannot wait for a threshold, with that threshold replaced by an exact, checked edit; it
 * scrapes the given jobs of the shipped deploy/prometheus/prometheus.yml at the test stack's addresses.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort } from '#testing';

const deployDir = join(process.cwd(), 'deploy/prometheus');

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RangeSeries {
  metric: Record<string, string>;
  values: Array<[number, string]>;
}

/** A threshold the scenario cannot wait for, replaced in one rule file (the test fails if `from` is absent). */
export interface RuleEdit {
  file: string;
  from: string;
  to: string;
}

export interface PrometheusOptions {
  /** Shipped job name → `host:port` of the running app. Jobs not given are not scraped. */
  targets: Record<string, string>;
  ruleEdits?: RuleEdit[];
  scrapeSeconds?: number;
}

export interface RunningPrometheus {
  readonly scrapeSeconds: number;
  query(expr: string): Promise<Sample[]>;
  queryRange(expr: string, startSeconds: number, endSeconds: number): Promise<RangeSeries[]>;
  /** Names of the alerts firing now, sorted, each once (an alert may fire for several jobs or instances). */
  firing(): Promise<string[]>;
  /** Every alert name of the loaded rules. */
  alertNames(): Promise<string[]>;
  stop(): Promise<void>;
}

async function shippedRules(dir: string, edits: RuleEdit[]): Promise<string[]> {
  const rulesDir = join(deployDir, 'rules');
  const files: string[] = [];
  const unused = new Set(edits);
  for (const file of (await readdir(rulesDir)).filter((f) => f.endsWith('.yml'))) {
    let text = (await readFile(join(rulesDir, file), 'utf8')).replace(/for: \d+[smh]/g, 'for: 2s');
    for (const edit of edits.filter((e) => e.file === file)) {
      if (!text.includes(edit.from)) throw new Error(`rule edit: '${edit.from}' is not in ${file}`);
      text = text.replaceAll(edit.from, edit.to);
      unused.delete(edit);
    }
    await writeFile(join(dir, file), text);
    files.push(join(dir, file));
  }
  if (unused.size > 0) throw new Error(`rule edits for missing files: ${[...unused].map((e) => e.file).join(', ')}`);
  return files;
}

export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  const scrapeSeconds = options.scrapeSeconds ?? 1;
  const shippedJobs = [...(await readFile(join(deployDir, 'prometheus.yml'), 'utf8')).matchAll(/job_name: (\S+)/g)].map(
    (m) => m[1],
  );
  for (const job of Object.keys(options.targets)) {
    if (!shippedJobs.includes(job)) throw new Error(`job ${job} is not in deploy/prometheus/prometheus.yml`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'gw-prom-'));
  const ruleFiles = await shippedRules(dir, options.ruleEdits ?? []);
  await writeFile(
    join(dir, 'prometheus.yml'),
    [
      `global: { scrape_interval: ${scrapeSeconds}s, evaluation_interval: ${scrapeSeconds}s }`,
      `rule_files: [${ruleFiles.map((f) => `'${f}'`).join(', ')}]`,
      'scrape_configs:',
      ...Object.entries(options.targets).flatMap(([job, target]) => [
        `  - job_name: ${job}`,
        `    static_configs: [{ targets: ['${target}'] }]`,
      ]),
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const api = `http://127.0.0.1:${port}/api/v1`;
  const child = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });

  async function get<T>(path: string, params: Record<string, string>): Promise<T> {
    const response = await fetch(`${api}/${path}?${new URLSearchParams(params).toString()}`);
    const body = (await response.json()) as { status: string; data?: T; error?: string };
    if (body.status !== 'success' || body.data === undefined) {
      throw new Error(`${path} ${JSON.stringify(params)}: ${body.error ?? response.status}`);
    }
    return body.data;
  }
  const query = async (expr: string) => (await get<{ result: Sample[] }>('query', { query: expr })).result;

  const running: RunningPrometheus = {
    scrapeSeconds,
    query,
    async queryRange(expr, startSeconds, endSeconds) {
      const params = { query: expr, start: String(startSeconds), end: String(endSeconds), step: `${scrapeSeconds}s` };
      return (await get<{ result: RangeSeries[] }>('query_range', params)).result;
    },
    async firing() {
      const names = (await query('ALERTS{alertstate="firing"}')).map((s) => s.metric['alertname'] ?? '');
      return [...new Set(names)].sort();
    },
    async alertNames() {
      const data = await get<{ groups: Array<{ rules: Array<{ type: string; name: string }> }> }>('rules', {});
      return data.groups.flatMap((g) => g.rules.filter((r) => r.type === 'alerting').map((r) => r.name)).sort();
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      await rm(dir, { recursive: true, force: true });
    },
  };
  const jobs = Object.keys(options.targets).length;
  try {
    await eventually(async () => ((await query('up == 1').catch(() => [])).length === jobs ? true : undefined), {
      what: 'Prometheus scraping every target',
      timeoutMs: 20_000,
      intervalMs: 250,
    });
  } catch (error) {
    await running.stop();
    throw error;
  }
  return running;
}
