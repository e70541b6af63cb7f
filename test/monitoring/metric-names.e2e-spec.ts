/**
 * Every metric an alert rule or a dashboard panel reads is one the gateway's code exports: a metric renamed
 * in an app, or a rule written for a metric that does not exist, fails here at once (the proof on a real
 * Prometheus covers the panels and raised alerts; this covers the rules no scenario can raise, too).
 */
import { describe, expect, it } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expandGrafanaVariables, panelQueries, readDashboards } from './dashboards.js';

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
    const dir = join(process.cwd(), 'deploy/prometheus/rules');
    const exprs: Array<{ where: string; expr: string }> = [];
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yml'))) {
      for (const expr of ruleExprs(await readFile(join(dir, file), 'utf8'))) exprs.push({ where: file, expr });
    }
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
});
