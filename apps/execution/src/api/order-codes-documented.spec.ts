/**
 * docs/algo-guide.md §6 against the code, so that neither drifts (outside tester: the guide named a few refusal
 * codes, and none of the FAILED ones; a client could not tell which to ask again): every refusal code of
 * `exec.order.place` has a row with the class `PLACE_REFUSAL_RETRY` gives it, every FAILED code (the connector's, the
 * execution app's, the venue's order codes) has a row, and every stream code classed by `streamRefusal` is listed with
 * the refusal it turns into.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  ExecutionErrorCode,
  ExecutionFailureCode,
  GatewayErrorCode,
  OrderNotSentCode,
  PLACE_REFUSAL_RETRY,
  type PlaceRetry,
} from '#contracts';
import { DEFINITIVE_SUBSCRIBE_REFUSALS, SandboxCode, VenueCode, venueCodeInfo } from '#venue-api';
import { streamRefusal } from '../quotes/stream-refusal.js';

const GUIDE = readFileSync(join(process.cwd(), 'docs/algo-guide.md'), 'utf8');

/** The rows of the first table under the `### {heading}` of §6: each row's cells, the header and rule left out. */
function tableUnder(heading: string): string[][] {
  const start = GUIDE.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`docs/algo-guide.md has no "### ${heading}"`);
  const rest = GUIDE.slice(start + heading.length + 6);
  const end = rest.search(/\n#{2,3} /);
  const rows = (end < 0 ? rest : rest.slice(0, end))
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  return rows.slice(2);
}

/** The codes a cell names: every `CODE` in back quotes. */
const codesIn = (cell: string | undefined): string[] =>
  [...(cell ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] as string);

/** Code → the row naming it in its first cell (a code named twice is an error). */
function rowsByCode(rows: string[][]): Map<string, string[]> {
  const byCode = new Map<string, string[]>();
  for (const row of rows) {
    for (const code of codesIn(row[0])) {
      if (byCode.has(code)) throw new Error(`${code} has two rows`);
      byCode.set(code, row);
    }
  }
  return byCode;
}

const RETRY_WORDS: Record<PlaceRetry, string> = {
  'same-key': '**same key**',
  'by-quote-request': '**by quote request**',
  no: '**no**',
};

describe('docs/algo-guide.md §6 names every code an order can be refused or fail with', () => {
  it('every refusal of exec.order.place has a row, classed as the code classes it; no row names a code that is none', () => {
    const rows = rowsByCode(tableUnder('Refusals of `exec.order.place`'));

    for (const [code, retry] of Object.entries(PLACE_REFUSAL_RETRY)) {
      const row = rows.get(code);
      expect({ code, documented: row !== undefined }).toEqual({ code, documented: true });
      expect({ code, askAgain: row?.[2]?.split(' — ')[0] }).toEqual({ code, askAgain: RETRY_WORDS[retry] });
    }
    expect([...rows.keys()].filter((code) => !(code in PLACE_REFUSAL_RETRY))).toEqual([]);
  });

  it('every FAILED code of the connector, the execution app and the venue has a row', () => {
    const rows = rowsByCode(tableUnder('FAILED outcomes'));
    const venueOrderCodes = [...Object.values(VenueCode), ...Object.values(SandboxCode)].filter(
      // ORDER_NOT_FOUND answers an orderUnsubscribe (W8), never an order
      (code) => venueCodeInfo(code)?.scope === 'order' && code !== SandboxCode.OrderNotFound,
    );
    const failed = [...Object.values(OrderNotSentCode), ...Object.values(ExecutionFailureCode), ...venueOrderCodes];

    expect(failed.filter((code) => !rows.has(code))).toEqual([]);
  });

  it('every stream code streamRefusal classes is listed with the refusal it turns into', () => {
    const rows = rowsByCode(tableUnder('The stream codes behind `QUOTE_REFUSED` and `QUOTE_UNAVAILABLE`'));
    const codes = [...DEFINITIVE_SUBSCRIBE_REFUSALS, ...Object.values(GatewayErrorCode)];

    for (const code of codes) {
      expect({ code, refusal: codesIn(rows.get(code)?.[2])[0] }).toEqual({
        code,
        refusal: streamRefusal({ code }).code,
      });
    }
    for (const [code, row] of rows) {
      expect({ code, refusal: codesIn(row[2])[0] }).toEqual({ code, refusal: streamRefusal({ code }).code });
    }
  });

  it('the query answers are named', () => {
    expect(tableUnder('FAILED outcomes').length).toBeGreaterThan(0);
    expect(GUIDE).toContain(`\`${ExecutionErrorCode.NotFound}\``);
  });
});
