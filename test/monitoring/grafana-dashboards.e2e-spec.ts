/**
 * The Grafana provisioning in deploy/grafana is loadable as shipped: the datasource and dashboard provider
 * files, and every dashboard valid against Grafana's published schema (the Grafana Foundation SDK's types,
 * see grafana-schema.ts) with its fixed uid, unique panel ids, a layout inside the 24-column grid, and every
 * query on the provisioned Prometheus datasource. That each query returns data is proven on a real
 * Prometheus by prometheus.e2e-spec.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASOURCE_UID, dataPanels, grafanaDir, readDashboards, type DashboardFile } from './dashboards.js';
import { dashboardSchemaProblems } from './grafana-schema.js';

/** The dashboards operators link to: file → fixed uid (a uid never changes once shipped). */
const FIXED_UIDS: Record<string, string> = {
  'gateway-overview.json': 'gw-overview',
  'price-feed.json': 'gw-price-feed',
  'orders-and-risk.json': 'gw-orders-risk',
  'nats-jetstream.json': 'gw-nats-jetstream',
  'account-and-webhooks.json': 'gw-account-webhooks',
};

function layoutProblems({ file, json }: DashboardFile): string[] {
  const problems: string[] = [];
  const ids = new Set<number>();
  const all = (json.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
  for (const panel of all) {
    const name = `${file} › ${panel.title ?? '?'}`;
    if (panel.id === undefined || ids.has(panel.id)) problems.push(`${name}: missing or repeated panel id`);
    else ids.add(panel.id);
    const g = panel.gridPos;
    if (g === undefined || g.x < 0 || g.w < 1 || g.x + g.w > 24 || g.h < 1) problems.push(`${name}: gridPos`);
  }
  for (const panel of dataPanels({ file, json })) {
    const name = `${file} › ${panel.title ?? '?'}`;
    if (!panel.title) problems.push(`${name}: no title`);
    if (typeof panel['description'] !== 'string') problems.push(`${name}: no description`);
    if (panel.datasource?.uid !== DATASOURCE_UID) problems.push(`${name}: datasource is not ${DATASOURCE_UID}`);
    if ((panel.targets ?? []).length === 0) problems.push(`${name}: no query`);
    const refIds = new Set<string>();
    for (const t of panel.targets ?? []) {
      if (t.datasource?.uid !== DATASOURCE_UID) problems.push(`${name} › ${t.refId}: datasource`);
      if (!t.expr?.trim()) problems.push(`${name} › ${t.refId}: empty expr`);
      if (t.refId === undefined || refIds.has(t.refId)) problems.push(`${name}: missing or repeated refId`);
      else refIds.add(t.refId);
    }
  }
  return problems;
}

describe('Grafana provisioning (deploy/grafana)', () => {
  it('provisions the Prometheus datasource with the fixed uid every panel uses, and the dashboards folder', async () => {
    const datasource = await readFile(join(grafanaDir, 'provisioning/datasources/prometheus.yml'), 'utf8');
    expect(datasource).toMatch(/^apiVersion: 1$/m);
    expect(datasource).toMatch(/^\s+type: prometheus$/m);
    expect(datasource).toMatch(new RegExp(`^\\s+uid: ${DATASOURCE_UID}$`, 'm'));
    const provider = await readFile(join(grafanaDir, 'provisioning/dashboards/gateway.yml'), 'utf8');
    expect(provider).toMatch(/^apiVersion: 1$/m);
    expect(provider).toMatch(/^\s+type: file$/m);
    expect(provider).toMatch(/^\s+path: \S+$/m);
  });

  it('ships each dashboard with its fixed uid, unique across files', async () => {
    const dashboards = await readDashboards();
    expect(Object.fromEntries(dashboards.map((d) => [d.file, d.json.uid]))).toEqual(FIXED_UIDS);
  });

  it('lays out every panel in the grid with a title, a description and queries on the provisioned datasource', async () => {
    const problems = (await readDashboards()).flatMap(layoutProblems);
    expect(problems).toEqual([]);
  });

  it("conforms to Grafana's published dashboard schema (Foundation SDK types), panel plugins and Prometheus queries", async () => {
    expect(dashboardSchemaProblems(await readDashboards())).toEqual([]);
  });

  it('and the schema check does catch what Grafana would reject', async () => {
    const [first] = await readDashboards();
    if (first === undefined) throw new Error('no dashboard');
    const panel = dataPanels(first).find((p) => p.type === 'timeseries');
    if (panel === undefined) throw new Error('no timeseries panel');
    const broken: DashboardFile = {
      file: 'broken.json',
      json: {
        ...first.json,
        graphTooltip: 7,
        panels: [
          { ...panel, title: 'unknown field', fieldConfig: { defaults: { unit: 's', colour: 'red' }, overrides: [] } },
          { ...panel, title: 'bad enum', options: { legend: { displayMode: 'grid' }, tooltip: { mode: 'multi' } } },
          { ...panel, title: 'no expr', targets: [{ refId: 'A', legendFormat: 'x' }] },
          { ...panel, title: 'unknown plugin', type: 'piechart-of-doom' },
        ],
      },
    };
    const problems = dashboardSchemaProblems([broken]);
    for (const where of ['dashboard', 'unknown field', 'bad enum', 'no expr', 'unknown plugin']) {
      expect(
        problems.some((p) => p.startsWith(`broken.json${where === 'dashboard' ? ': dashboard' : ` › ${where}`}`)),
      ).toBe(true);
    }
  });
});
