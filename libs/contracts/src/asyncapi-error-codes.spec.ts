/**
 * Every error code an app can answer on a documented subject, and every code a stopped price or an order outcome
 * carries, is named by the contract: docs/nats-contract.md "Error codes" and docs/asyncapi.yaml's code descriptions
 * (ErrorReply, OrderRejection, PriceMessage, OrderOutcome). An outside integrator got IDEMPOTENCY_CONFLICT, BANK_ACCOUNT_UNUSABLE,
 * RISK_CONTROL_CONFLICT and INSTRUMENT_HALTED back, none of which the contract named.
 *
 * The codes are the contract's code constants plus the literal codes the apps' sources reply or stop a price with
 * (`errorReply('NOT_HELD', …)`, `stop(state, 'RELEASED', …)`, `ack.code || 'SUBSCRIBE_FAILED'`). The refusals of
 * `exec.order.place` are in docs/algo-guide.md §6 (apps/execution/src/api/order-codes-documented.spec.ts).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import {
  ExecutionErrorCode,
  GatewayErrorCode,
  PLACE_REFUSAL_RETRY,
  RiskCode,
  RiskControlError,
  TransactionErrorCode,
  WithdrawalErrorCode,
} from './index.js';

const ROOT = process.cwd();
const CONTRACT = readFileSync(join(ROOT, 'docs/nats-contract.md'), 'utf8');
const ASYNCAPI = readFileSync(join(ROOT, 'docs/asyncapi.yaml'), 'utf8');

/** Where the apps answer requests and publish prices: their sources, tests left out. */
const SOURCES = ['apps/connector/src', 'apps/execution/src', 'apps/account-sync/src', 'libs/bus/src'];

/** A code literal where a reply or a stopped price takes it. */
const CODE_LITERAL =
  /(?:errorReply\(|ok: false, code: |Error\(|stop\(\w+, |\|\| |code: )\s*'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)'/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The literal codes in the given sources (at least 4 characters: a code, not an abbreviation). */
export function literalCodes(texts: string[]): Set<string> {
  const codes = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(CODE_LITERAL)) {
      const code = match[1] ?? '';
      if (code.length >= 4) codes.add(code);
    }
  }
  return codes;
}

const scanned = literalCodes(SOURCES.flatMap(sourceFiles).map((path) => readFileSync(join(ROOT, path), 'utf8')));

/** Every code, but the refusals of `exec.order.place` (docs/algo-guide.md §6). */
const codes = [
  ...new Set([
    ...Object.values(GatewayErrorCode),
    ...Object.values(ExecutionErrorCode),
    ...Object.values(RiskCode),
    ...Object.values(RiskControlError),
    ...Object.values(WithdrawalErrorCode),
    ...Object.values(TransactionErrorCode),
    ...scanned,
  ]),
].filter((code) => !(code in PLACE_REFUSAL_RETRY));

/** The text of a `## ` section of a markdown document. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}"`);
  const rest = markdown.slice(start + heading.length + 5);
  const end = rest.search(/\n## /);
  return end < 0 ? rest : rest.slice(0, end);
}

const named = (text: string, code: string): boolean =>
  text.includes(`\`${code}\``) || new RegExp(`\\b${code}\\b`).test(text);

interface Schema {
  description?: string;
  properties?: Record<string, Schema>;
}

let codeDescriptions = '';

beforeAll(async () => {
  const { document } = await new Parser().parse(ASYNCAPI);
  if (document === undefined) throw new Error('docs/asyncapi.yaml does not parse');
  const schemas = (document.json() as unknown as { components: { schemas: Record<string, Schema> } }).components
    .schemas;
  codeDescriptions = [
    schemas['ErrorReply']?.properties?.['error']?.properties?.['code']?.description,
    schemas['PriceMessage']?.properties?.['code']?.description,
    schemas['OrderOutcome']?.properties?.['code']?.description,
    schemas['OrderRejection']?.properties?.['error']?.properties?.['code']?.description,
  ].join('\n');
});

describe('every error code the apps answer is in the contract', () => {
  it('the scan finds the literal codes of the connector (it has teeth)', () => {
    for (const code of ['NOT_HELD', 'SUBSCRIBE_FAILED', 'STREAM_STOPPED', 'VENUE_REFUSED', 'RELEASED', 'SHUTDOWN'])
      expect({ code, found: scanned.has(code) }).toEqual({ code, found: true });
    expect([...literalCodes(["return errorReply('NEW_CODE', 'x');"])]).toEqual(['NEW_CODE']);
  });

  it('docs/nats-contract.md "Error codes" names each one', () => {
    const text = section(CONTRACT, 'Error codes');
    expect(codes.filter((code) => !text.includes(`\`${code}\``))).toEqual([]);
  });

  it('docs/asyncapi.yaml names each one in the code descriptions of ErrorReply, OrderRejection, PriceMessage or OrderOutcome', () => {
    expect(codeDescriptions.length).toBeGreaterThan(0);
    expect(codes.filter((code) => !named(codeDescriptions, code))).toEqual([]);
  });

  it('the exec.order.place refusals are left to docs/algo-guide.md §6, and the contract says so', () => {
    expect(section(CONTRACT, 'Error codes')).toContain('algo-guide.md');
  });
});
