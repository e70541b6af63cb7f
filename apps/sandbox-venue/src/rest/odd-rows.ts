/**
 * Operator fault: list rows written the way another venue might write them, so a client's list reading is tested
 * against the wire (docs/spec-gaps.md C8). By record uuid, in the trade list (§4.5) and the transaction list (R9);
 * webhooks are not touched.
 *
 *   unreadable   the row carries no `uuid` (a client cannot identify it: it must leave it out, count it, and page on)
 *   unusual      the row keeps its uuid and the fields a leg needs, but its other fields are odd: a trade's state,
 *                side and class outside §2.4's lists or of another kind, a transaction's class and type outside
 *                §2.9's lists, `displayTitle` an object, `received` text — and a property no spec names
 *   bad-ccy      a transaction leg whose `ccy` is no currency code (`U\u0000SD`): a client must leave it out, count
 *                it and keep the rest (tester t2 F5); a trade row is written unchanged
 */
import { Injectable } from '@nestjs/common';
import type { WireValue } from '../http/json.js';

export const ODD_ROW_SHAPES = ['unreadable', 'unusual', 'bad-ccy'] as const;
export type OddRowShape = (typeof ODD_ROW_SHAPES)[number];

type WireObject = { readonly [key: string]: WireValue };

const UNUSUAL: Record<'trade' | 'transaction', WireObject> = {
  trade: { state: 'ON_HOLD', tradeSide: 7, tradeClass: 'BLOCK', createdAt: 1_700_000_000_000, venueExtra: { x: 1 } },
  transaction: {
    transactionClass: 'FEE',
    transactionType: 'FEE_DEBIT',
    displayTitle: { en: 'Fee' },
    received: 'soon',
    venueExtra: { x: 1 },
  },
};

@Injectable()
export class OddRows {
  private readonly rows = new Map<string, OddRowShape>();

  set(uuid: string, shape: OddRowShape): void {
    this.rows.set(uuid, shape);
  }

  clear(): void {
    this.rows.clear();
  }

  get size(): number {
    return this.rows.size;
  }

  /** The row as written: unchanged unless its uuid was named. */
  write(kind: 'trade' | 'transaction', row: WireValue): WireValue {
    if (this.rows.size === 0 || typeof row !== 'object' || row === null || Array.isArray(row)) return row;
    const object = row as WireObject;
    const uuid = object['uuid'];
    const shape = typeof uuid === 'string' ? this.rows.get(uuid) : undefined;
    if (shape === undefined) return row;
    if (shape === 'unusual') return { ...object, ...UNUSUAL[kind] };
    if (shape === 'bad-ccy') return kind === 'transaction' ? { ...object, ccy: 'U\u0000SD' } : row;
    return Object.fromEntries(Object.entries(object).filter(([key]) => key !== 'uuid'));
  }
}
