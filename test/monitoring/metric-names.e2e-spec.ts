/**
 * Every metric an alert rule or a dashboard panel reads is one the gateway's code exports: a metric renamed
 * in an app, or a rule written for a metric that does not exist, fails here at once (the proof on a real
 * Prometheus covers the panels and raised alerts; this covers the rules no scenario can raise, too). The other way
 * round, every metric the gateway registers is read by a panel or a rule: one no operator can see is found here,
 * not during an incident. And every
 * metric a runbook step names has a series on its app's /metrics from start-up, before any event: "none yet" is
 * a 0, never "no data", which cannot be told from "not exported".
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '#testing';
import { expandGrafanaVariables, panelQueries, readDashboards } from './dashboards.js';
import { startGatewayStack, type GatewayStack } from './gateway-stack.js';

/** Series Prometheus makes itself. */
const BUILT_IN = new Set(['up', 'ALERTS', 'ALERTS_FOR_STATE']);
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless']);
const KEYWORDS_TOO = new Set(['offset', 'bool', 'inf', 'nan']);

/** The metric names a PromQL expression reads (labels, functions, strings, ranges and numbers left out). */
function metricsOf(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/(^|[^A-Za-z0-9_:])[0-9][0-9.e+]*[a-z]*/gi, '$1 ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const name = m[0];
    const after = stripped.slice((m.index ?? 0) + name.length);
    if (/^\s*\(/.test(after) || KEYWORDS.has(name) || KEYWORDS_TOO.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** Each `expr:` of a rules file, single-line or a folded block (`>-`). */
function ruleExprs(text: string): string[] {
  const lines = text.split('\n');
  const exprs: string[] = [];
  lines.forEach((line, i) => {
    const m = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (m === null) return;
    const [, indent = '', rest = ''] = m;
    if (!/^[>|]/.test(rest)) return void exprs.push(rest);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j] ?? '').search(/\S/) > indent.length; j++)
      block.push(lines[j] ?? '');
    exprs.push(block.join(' '));
  });
  return exprs;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) found.push(path);
  }
  return found;
}

/** Every string literal of the apps' and libs' code that could be a metric name. */
async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const root of ['apps', 'libs']) {
    for (const file of await sourceFiles(join(process.cwd(), root))) {
      for (const m of (await readFile(file, 'utf8')).matchAll(/'([a-z][a-z0-9_]*_[a-z0-9_]+)'/g)) names.add(m[1] ?? '');
    }
  }
  return names;
}

function unknownMetrics(exprs: Array<{ where: string; expr: string }>, exported: Set<string>): string[] {
  return exprs.flatMap(({ where, expr }) =>
    metricsOf(expr)
      .filter((n) => !BUILT_IN.has(n) && !exported.has(n) && !exported.has(n.replace(/_(bucket|sum|count)$/, '')))
      .map((n) => `${where}: ${n}`),
  );
}

describe('metric names read by the rules and dashboards', () => {
  it('reads metric names out of PromQL, leaving labels, functions and durations out', () => {
    expect(
      metricsOf(
        'histogram_quantile(0.99, sum by (le, phase) (rate(connector_order_reply_seconds_bucket{job="x"}[30s]))) > 1',
      ),
    ).toEqual(['connector_order_reply_seconds_bucket']);
    expect(metricsOf('a_total unless a_total offset 5m or on(job) vector(0)')).toEqual(['a_total']);
    expect(metricsOf('count(ALERTS{alertstate="firing", alertname=~"Gateway.+"}) or up == 0')).toEqual([
      'ALERTS',
      'up',
    ]);
  });

  it('are all exported by the gateway: every alert rule expression', async () => {
    const exprs = await ruleExpressions();
    expect(exprs.length).toBeGreaterThan(0);
    expect(unknownMetrics(exprs, await exportedNames())).toEqual([]);
    expect(unknownMetrics([{ where: 'a typo', expr: 'connector_stale_stream > 0' }], await exportedNames())).toEqual([
      'a typo: connector_stale_stream',
    ]);
  });

  it('are all exported by the gateway: every dashboard panel query', async () => {
    const queries = panelQueries(await readDashboards()).map((q) => ({
      ...q,
      expr: expandGrafanaVariables(q.expr, 5),
    }));
    expect(unknownMetrics(queries, await exportedNames())).toEqual([]);
  });

  it('cover every metric the gateway registers: each is on a dashboard panel or in an alert rule', async () => {
    const read = new Set<string>();
    for (const { expr } of [...(await ruleExpressions()), ...panelQueries(await readDashboards())])
      for (const name of metricsOf(expandGrafanaVariables(expr, 5))) read.add(name.replace(/_(bucket|sum|count)$/, ''));
    const registered = await registeredNames();
    expect(registered.size).toBeGreaterThan(100);
    expect([...registered].filter((name) => !read.has(name)).sort()).toEqual([]);
  });
});

/** Every alert rule expression of deploy/prometheus/rules, with its file. */
async function ruleExpressions(): Promise<Array<{ where: string; expr: string }>> {
  const dir = join(process.cwd(), 'deploy/prometheus/rules');
  const exprs: Array<{ where: string; expr: string }> = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yml'))) {
    for (const expr of ruleExprs(await readFile(join(dir, file), 'utf8'))) exprs.push({ where: file, expr });
  }
  return exprs;
}

/** The names the gateway's apps and libs give prom-client metrics (the sandbox venue's own are not the gateway's). */
async function registeredNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const root of ['apps', 'libs']) {
    for (const file of await sourceFiles(join(process.cwd(), root))) {
      if (file.includes('/apps/sandbox-venue/')) continue;
      for (const m of (await readFile(file, 'utf8')).matchAll(/\bname: '([a-z][a-z0-9_]*_[a-z0-9_]+)'/g))
        names.add(m[1] ?? '');
    }
  }
  return names;
}

type AppName = 'connector' | 'execution' | 'account-sync';
const APPS: readonly AppName[] = ['connector', 'execution', 'account-sync'];

/** The metric names docs/runbook.md names (`name` or `name{labels}` in backticks), with the apps that export them. */
function runbookMetrics(text: string): Array<{ name: string; apps: readonly AppName[] }> {
  const names = new Set<string>();
  for (const code of text.matchAll(/`([^`]+)`/g)) {
    for (const m of (code[1] ?? '').matchAll(/\b((?:bus|jetstream|connector|execution|account|venue)_[a-z0-9_]+)/g))
      names.add(m[1] ?? '');
  }
  return [...names].sort().map((name) => ({ name, apps: appsOf(name) }));
}

/** By prefix: an app's own metrics, the bus's of every app, the venue REST reads of the apps reading lists. */
function appsOf(name: string): readonly AppName[] {
  if (name.startsWith('connector_')) return ['connector'];
  if (name.startsWith('execution_')) return ['execution'];
  if (name.startsWith('account_')) return ['account-sync'];
  if (name.startsWith('venue_rest_')) return ['execution', 'account-sync'];
  return APPS;
}

/** The metric names with at least one sample in a /metrics text (a histogram by its `_bucket`/`_sum`/`_count`). */
function namesWithSamples(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (m?.[1] !== undefined) names.add(m[1]).add(m[1].replace(/_(bucket|sum|count)$/, ''));
  }
  return names;
}

describe('metric names the runbook names', () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startGatewayStack({});
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('reads metric names out of the runbook and finds series in an exposition', () => {
    expect(runbookMetrics('**Check:** `a_total`, `bus_x_total{kind}` and `execution_y_total{code="Z"}`')).toEqual([
      { name: 'bus_x_total', apps: APPS },
      { name: 'execution_y_total', apps: ['execution'] },
    ]);
    const exposition = '# TYPE a_seconds histogram\na_seconds_bucket{le="1"} 0\nb_total 0\n# TYPE c_total counter\n';
    expect([...namesWithSamples(exposition)].sort()).toEqual(['a_seconds', 'a_seconds_bucket', 'b_total']);
  });

  it('each has a series on its app\'s /metrics from start-up, before any event (a 0, not "no data")', async () => {
    const named = runbookMetrics(await readFile(join(process.cwd(), 'docs/runbook.md'), 'utf8'));
    expect(named.length).toBeGreaterThan(20);
    const urls: Record<AppName, () => string> = {
      connector: () => stack.connector.httpUrl,
      execution: () => stack.execution.httpUrl,
      'account-sync': () => stack.accountSync.httpUrl,
    };
    let missing: string[] = [];
    // the apps' first reads (venue balances, the session) are part of start-up: a safety bound, not a timing
    await eventually(
      async () => {
        const exported = new Map<AppName, Set<string>>();
        for (const app of APPS) {
          const response = await fetch(`${urls[app]()}/metrics`);
          exported.set(app, namesWithSamples(await response.text()));
        }
        missing = named.flatMap(({ name, apps }) =>
          apps.filter((app) => !exported.get(app)?.has(name)).map((app) => `${app}: ${name}`),
        );
        return missing.length === 0 ? true : undefined;
      },
      { what: 'every runbook metric on its app', timeoutMs: 20_000, intervalMs: 500 },
    ).catch(() => undefined);
    expect(missing).toEqual([]);
  });
});
