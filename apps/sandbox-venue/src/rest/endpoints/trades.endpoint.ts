/** §4.5 `POST /api/3/trades`: the caller's trades with filters and pagination; errors per §7.3. */
import { Inject, Injectable } from '@nestjs/common';
import { RestPath } from '#venue-api';
import { VenueDirectory } from '../../domain/directory.js';
import { TradeBook, tradeWire, type TradeRecord } from '../../domain/trades.js';
import { optionalInteger, optionalString } from '../body-fields.js';
import { isoDateTime } from '../iso-date-time.js';
import { OddRows } from '../odd-rows.js';
import { invalidAccountGroupReply, invalidParameterReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';

/** §4.5's filter values: FAILED is a trade state (§2.4) but not a value the filter takes (spec-gaps R35). */
const FILTER_STATES = ['PENDING_SETTLEMENT', 'SETTLED', 'CANCELLED'];
const SIDES = ['BUY', 'SELL'];
const CLASSES = ['OTC', 'RFS'];

@Injectable()
export class TradesEndpoint implements VenueEndpoints {
  constructor(
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(TradeBook) private readonly trades: TradeBook,
    @Inject(OddRows) private readonly oddRows: OddRows,
  ) {}

  routes(): VenueRoute[] {
    return [
      { template: RestPath.Trades, pattern: exactPath(RestPath.Trades), family: 'trades', handle: (c) => this.list(c) },
    ];
  }

  private list(call: SignedCall): VenueReply {
    const bad = (message: string): VenueReply => invalidParameterReply('trades', message, call.now);
    const b = call.body;
    const strings: Record<string, string | undefined> = {};
    for (const name of [
      'tradeRef',
      'clientRef',
      'tradeState',
      'tradeSide',
      'tradeClass',
      'from',
      'to',
      'accountGrpUuid',
    ]) {
      const f = optionalString(b, name);
      if (!f.ok) return bad(`${name} must be a string`);
      strings[name] = f.value;
    }
    const { tradeRef, clientRef, tradeState, tradeSide, tradeClass, accountGrpUuid } = strings;
    if (tradeState !== undefined && !FILTER_STATES.includes(tradeState)) {
      return bad('tradeState must be PENDING_SETTLEMENT, SETTLED or CANCELLED');
    }
    if (tradeSide !== undefined && !SIDES.includes(tradeSide)) return bad('tradeSide must be BUY or SELL');
    if (tradeClass !== undefined && !CLASSES.includes(tradeClass)) return bad('tradeClass must be OTC or RFS');
    const from = strings['from'] === undefined ? undefined : isoDateTime(strings['from']);
    const to = strings['to'] === undefined ? undefined : isoDateTime(strings['to']);
    if (strings['from'] !== undefined && from === undefined)
      return bad('Invalid date format for from: ISO 8601 required');
    if (strings['to'] !== undefined && to === undefined) return bad('Invalid date format for to: ISO 8601 required');
    const max = optionalInteger(b, 'max');
    const offset = optionalInteger(b, 'offset');
    if (!max.ok || (max.value !== undefined && (max.value < 1 || max.value > 200))) return bad('max must be 1 to 200');
    if (!offset.ok || (offset.value !== undefined && offset.value < 0))
      return bad('offset must be a non-negative integer');
    if (accountGrpUuid !== undefined && !this.directory.canAccessGroup(call.user.uuid, accountGrpUuid)) {
      return invalidAccountGroupReply();
    }
    const visible = new Set(this.directory.groupsOf(call.user.uuid).map((g) => g.uuid));
    const matches = (t: TradeRecord): boolean =>
      visible.has(t.accountGroupUuid) &&
      (accountGrpUuid === undefined || t.accountGroupUuid === accountGrpUuid) &&
      (tradeRef === undefined || t.tradeRef === tradeRef) &&
      (clientRef === undefined || t.clientRef === clientRef) &&
      (tradeState === undefined || t.state === tradeState) &&
      (tradeSide === undefined || t.tradeSide === tradeSide) &&
      (tradeClass === undefined || t.tradeClass === tradeClass) &&
      (from === undefined || t.createdAt >= from) &&
      (to === undefined || t.createdAt <= to);
    const filtered = [tradeRef, clientRef, tradeState, tradeSide, tradeClass, accountGrpUuid, from, to].some(
      (filter) => filter !== undefined,
    );
    const all = this.trades
      .newestFirst()
      .filter(filtered ? matches : (t: TradeRecord) => visible.has(t.accountGroupUuid));
    const start = offset.value ?? 0;
    const page = all.slice(start, start + (max.value ?? 50));
    const data = page.map((t) => this.oddRows.write('trade', tradeWire(t, this.directory)));
    return { status: 200, body: { data, total: all.length } };
  }
}
