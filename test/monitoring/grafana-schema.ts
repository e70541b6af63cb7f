/**
 * Validates dashboard JSON against Grafana's published dashboard schema as shipped in the Grafana Foundation
 * SDK (`@grafana/grafana-foundation-sdk`, generated from Grafana's CUE schemas). The SDK ships that schema
 * as TypeScript types, not as JSON Schema, so the TypeScript compiler is the validator: each part of a
 * dashboard is written into a generated source file as an object literal typed by the SDK's type, and the
 * compiler's excess-property and assignability checks report unknown fields, missing required fields and
 * values outside an enum. Panel options, field `custom` config and queries are checked against the type
 * of their panel plugin (timeseries, stat) and data source (prometheus); a panel type without a schema here
 * is a problem, not a pass.
 */
import ts from 'typescript';
import { join } from 'node:path';
import type { DashboardFile, DashboardPanel } from './dashboards.js';

/** Panel plugin → the SDK module whose `Options` (and `FieldConfig`, when it has one) types it. */
const PANEL_SCHEMAS: Record<string, { module: string; custom: boolean }> = {
  timeseries: { module: 'timeseries', custom: true },
  stat: { module: 'stat', custom: false },
};

const PRELUDE = `
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import type * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
${Object.values(PANEL_SCHEMAS)
  .map((s) => `import type * as ${s.module} from '@grafana/grafana-foundation-sdk/${s.module}';`)
  .join('\n')}
type Fn = (...args: never[]) => unknown;
/** A type as it appears in JSON: enums as their values, no methods (the SDK's variant markers). */
type Json<T> = 0 extends 1 & T
  ? T
  : T extends Fn
    ? never
    : T extends string
      ? \`\${T}\`
      : T extends number | boolean | null | undefined
        ? T
        : T extends readonly (infer U)[]
          ? Json<U>[]
          : T extends object
            ? { [K in keyof T as T[K] extends Fn ? never : K]: Json<T[K]> }
            : T;
type NoCustom = { [key: string]: never };
`;

interface Check {
  what: string;
  type: string;
  value: unknown;
}

function panelChecks(where: string, panel: DashboardPanel): Check[] {
  const schema = PANEL_SCHEMAS[panel.type];
  if (schema === undefined)
    return [{ what: `${where}: panel type '${panel.type}' has no schema here`, type: 'never', value: 0 }];
  const { targets, options, fieldConfig, ...rest } = panel;
  const checks: Check[] = [
    {
      what: `${where}: panel`,
      type: `Json<Omit<dashboard.Panel, 'targets' | 'options' | 'fieldConfig'>>`,
      value: rest,
    },
    { what: `${where}: options`, type: `Json<${schema.module}.Options>`, value: options ?? {} },
  ];
  const { defaults, ...overrides } = (fieldConfig ?? {}) as { defaults?: { custom?: unknown } };
  const { custom, ...fieldDefaults } = defaults ?? {};
  checks.push({
    what: `${where}: fieldConfig`,
    type: `Json<dashboard.FieldConfigSource>`,
    value: { ...overrides, defaults: fieldDefaults },
  });
  checks.push({
    what: `${where}: fieldConfig.defaults.custom`,
    type: schema.custom ? `Json<${schema.module}.FieldConfig>` : 'NoCustom',
    value: custom ?? {},
  });
  for (const target of targets ?? []) {
    checks.push({ what: `${where}: query ${String(target.refId)}`, type: 'Json<prometheus.Dataquery>', value: target });
  }
  return checks;
}

function dashboardChecks({ file, json }: DashboardFile): Check[] {
  const { panels = [], ...top } = json;
  const checks: Check[] = [
    { what: `${file}: dashboard`, type: `Json<Omit<dashboard.Dashboard, 'panels'>>`, value: top },
  ];
  for (const panel of panels) {
    const where = `${file} › ${panel.title ?? String(panel.id)}`;
    if (panel.type === 'row') {
      // the row itself without its panels (each is checked as a panel below)
      const { panels: inner = [], ...row } = panel;
      checks.push({ what: `${where}: row`, type: `Json<Omit<dashboard.RowPanel, 'panels'>>`, value: row });
      for (const p of inner) checks.push(...panelChecks(`${where} › ${p.title ?? String(p.id)}`, p));
    } else {
      checks.push(...panelChecks(where, panel));
    }
  }
  return checks;
}

/** Every schema violation in the dashboards, as `where: compiler message` (empty when all conform). */
export function dashboardSchemaProblems(dashboards: DashboardFile[]): string[] {
  const checks = dashboards.flatMap(dashboardChecks);
  const preludeLines = PRELUDE.split('\n').length;
  // One check per line: a diagnostic's line names the check it belongs to.
  const source =
    PRELUDE + checks.map((c, i) => `export const check${i}: ${c.type} = ${JSON.stringify(c.value)};`).join('\n');
  const fileName = join(process.cwd(), 'test/monitoring/grafana-schema-check.generated.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (f) => f === fileName || ts.sys.fileExists(f);
  host.readFile = (f) => (f === fileName ? source : readFile(f));
  host.getSourceFile = (f, language, ...rest) =>
    f === fileName ? ts.createSourceFile(f, source, language, true) : getSourceFile(f, language, ...rest);
  const program = ts.createProgram([fileName], options, host);
  const sourceFile = program.getSourceFile(fileName);
  if (sourceFile === undefined) throw new Error('the generated schema check was not compiled');
  const diagnostics = [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
  return diagnostics.map((d) => {
    const line = d.start === undefined ? -1 : sourceFile.getLineAndCharacterOfPosition(d.start).line;
    const check = checks[line - (preludeLines - 1)];
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    return `${check?.what ?? 'schema prelude'}: ${message}`;
  });
}
