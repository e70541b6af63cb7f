/**
 * The Grafana dashboards shipped in deploy/grafana/dashboards, read as files (the same files Grafana's file
 * provider loads), with every panel flattened out of its rows. Both the schema test and the proof on a real
 * Prometheus read them from here, so a panel added to a file is checked by both without touching a test.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const grafanaDir = join(process.cwd(), 'deploy/grafana');
export const dashboardsDir = join(grafanaDir, 'dashboards');

/** The uid of the provisioned Prometheus datasource every panel and query names. */
export const DATASOURCE_UID = 'gw-prometheus';

export interface DashboardTarget {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
  [key: string]: unknown;
}

export interface DashboardPanel {
  id?: number;
  type: string;
  title?: string;
  datasource?: { type?: string; uid?: string };
  gridPos?: { x: number; y: number; w: number; h: number };
  targets?: DashboardTarget[];
  panels?: DashboardPanel[];
  [key: string]: unknown;
}

export interface DashboardFile {
  file: string;
  json: { uid?: string; title?: string; panels?: DashboardPanel[]; [key: string]: unknown };
}

export async function readDashboards(): Promise<DashboardFile[]> {
  const files = (await readdir(dashboardsDir)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({
      file,
      json: JSON.parse(await readFile(join(dashboardsDir, file), 'utf8')) as DashboardFile['json'],
    })),
  );
}

/** Every panel of a dashboard that shows data (rows are containers: their own panels are returned instead). */
export function dataPanels(dashboard: DashboardFile): DashboardPanel[] {
  const panels: DashboardPanel[] = [];
  for (const panel of dashboard.json.panels ?? []) {
    if (panel.type === 'row') panels.push(...(panel.panels ?? []));
    else panels.push(panel);
  }
  return panels;
}

/** One query of one panel, named for messages: `file › panel title › refId`. */
export interface PanelQuery {
  where: string;
  expr: string;
}

export function panelQueries(dashboards: DashboardFile[]): PanelQuery[] {
  return dashboards.flatMap((d) =>
    dataPanels(d).flatMap((p) =>
      (p.targets ?? []).map((t) => ({
        where: `${d.file} › ${p.title ?? p.id} › ${t.refId ?? '?'}`,
        expr: t.expr ?? '',
      })),
    ),
  );
}

/**
 * Grafana's built-in interval variables as Grafana would expand them for a Prometheus scraped every
 * `scrapeSeconds` (its `$__rate_interval` is at least four scrape intervals). A query with any other `$`
 * variable is refused: the dashboards define no template variables.
 */
export function expandGrafanaVariables(expr: string, scrapeSeconds: number): string {
  const expanded = expr
    .replaceAll('$__rate_interval', `${Math.max(4 * scrapeSeconds, 15)}s`)
    .replaceAll('$__interval', `${scrapeSeconds}s`)
    .replaceAll('$__range', '5m');
  if (expanded.includes('$')) throw new Error(`unknown Grafana variable in ${expr}`);
  return expanded;
}
