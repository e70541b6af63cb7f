/** spec-gaps R9 `POST /api/3/transaction/list`: the caller's transaction legs (§2.9 shape), newest first. */
import { Inject, Injectable } from '@nestjs/common';
import { RestPath } from '#venue-api';
import { TransactionBook, transactionWire } from '../../domain/transactions.js';
import { optionalInteger, optionalString } from '../body-fields.js';
import { isoDateTime } from '../iso-date-time.js';
import { OddRows } from '../odd-rows.js';
import { invalidParameterReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';

const CLASSES = ['OTCTRADE', 'RFSTRADE', 'COIN', 'CASH'];

@Injectable()
export class TransactionsEndpoint implements VenueEndpoints {
  constructor(
    @Inject(TransactionBook) private readonly transactions: TransactionBook,
    @Inject(OddRows) private readonly oddRows: OddRows,
  ) {}

  routes(): VenueRoute[] {
    return [
      {
        template: RestPath.TransactionList,
        pattern: exactPath(RestPath.TransactionList),
        family: 'general',
        handle: (c) => this.list(c),
      },
    ];
  }

  private list(call: SignedCall): VenueReply {
    const bad = (message: string): VenueReply => invalidParameterReply('general', message, call.now);
    const fromText = optionalString(call.body, 'from');
    const toText = optionalString(call.body, 'to');
    const ccy = optionalString(call.body, 'ccy');
    const cls = optionalString(call.body, 'transactionClass');
    // AS5: narrowing by group, type and state, under the record's own field names.
    const group = optionalString(call.body, 'accountGroupUuid');
    const type = optionalString(call.body, 'transactionType');
    const state = optionalString(call.body, 'transactionState');
    const max = optionalInteger(call.body, 'max');
    const offset = optionalInteger(call.body, 'offset');
    if (!fromText.ok || !toText.ok || !ccy.ok || !cls.ok || !group.ok || !type.ok || !state.ok) {
      return bad('filters must be strings');
    }
    const from = fromText.value === undefined ? undefined : isoDateTime(fromText.value);
    const to = toText.value === undefined ? undefined : isoDateTime(toText.value);
    if ((fromText.value !== undefined && from === undefined) || (toText.value !== undefined && to === undefined)) {
      return bad('Invalid date format: ISO 8601 required');
    }
    if (cls.value !== undefined && !CLASSES.includes(cls.value)) return bad('transactionClass is not a class');
    if (!max.ok || (max.value !== undefined && (max.value < 1 || max.value > 200))) return bad('max must be 1 to 200');
    if (!offset.ok || (offset.value !== undefined && offset.value < 0)) return bad('offset must be non-negative');
    const all = this.transactions
      .ofUser(call.user.uuid)
      .filter(
        (t) =>
          (ccy.value === undefined || t.ccy === ccy.value) &&
          (cls.value === undefined || t.transactionClass === cls.value) &&
          (group.value === undefined || t.accountGroupUuid === group.value) &&
          (type.value === undefined || t.transactionType === type.value) &&
          (state.value === undefined || t.transactionState === state.value) &&
          (from === undefined || t.received >= from) &&
          (to === undefined || t.received <= to),
      )
      .reverse();
    const start = offset.value ?? 0;
    return {
      status: 200,
      body: {
        data: all
          .slice(start, start + (max.value ?? 50))
          .map((r) => this.oddRows.write('transaction', transactionWire(r))),
        total: all.length,
      },
    };
  }
}
