/**
 * Fault controls of the back office: REST failures, token rejection, clock skew, participants outage, a balance
 * moved without a transaction leg, list rows written oddly.
 */
import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Post,
} from '@nestjs/common';
import { RestPath } from '#venue-api';
import { SkewableClock } from '../domain/clock.js';
import { VenueDirectory } from '../domain/directory.js';
import { Ledger } from '../domain/ledger.js';
import { ODD_ROW_SHAPES, OddRows, type OddRowShape } from '../rest/odd-rows.js';
import { RestFaults } from '../rest/rest-faults.js';
import { asBody, booleanField, heldAmount, integerField, optionalText, requiredString } from './admin-input.js';

@Controller('admin')
export class FaultsAdminController {
  constructor(
    @Inject(RestFaults) private readonly faults: RestFaults,
    @Inject(SkewableClock) private readonly clock: SkewableClock,
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(Ledger) private readonly ledger: Ledger,
    @Inject(OddRows) private readonly oddRows: OddRows,
  ) {}

  /** `{status: 500|502|503|429|401, count?, path?, applyThenFail?}`: the next `count` matching requests fail. */
  @Post('faults/rest')
  @HttpCode(200)
  restFault(@Body() raw: unknown): { pending: number } {
    const body = asBody(raw);
    const status = integerField(body, 'status');
    if (status !== 401 && status !== 429 && (status < 500 || status > 599)) {
      throw new BadRequestException('status must be 401, 429 or 5xx');
    }
    this.faults.add({
      path: optionalText(body, 'path'),
      status,
      remaining: integerField(body, 'count', 1),
      applyThenFail: booleanField(body, 'applyThenFail', false),
    });
    return { pending: this.faults.pending().length };
  }

  @Delete('faults/rest')
  clearRestFaults(): { pending: number } {
    this.faults.clear();
    return { pending: 0 };
  }

  /** `{count?}`: the next token requests are refused (401, W1). */
  @Post('faults/token')
  @HttpCode(200)
  rejectTokens(@Body() raw: unknown): { pending: number } {
    this.faults.add({
      path: RestPath.Token,
      status: 401,
      remaining: integerField(asBody(raw), 'count', 1),
      applyThenFail: false,
    });
    return { pending: this.faults.pending().length };
  }

  /** `{available: boolean}`: names and aliases vanish from withdrawal lists while down (§2.7). */
  @Post('faults/participants')
  @HttpCode(200)
  participants(@Body() raw: unknown): { available: boolean } {
    const available = booleanField(asBody(raw), 'available');
    this.directory.setParticipantsServiceUp(available);
    return { available };
  }

  /**
   * `{accountGroupUuid, ccy, amount}`: the back office adds `amount` to a settled balance without
   * booking a transaction leg — the balance no longer matches its newest leg's `balanceAfter` (a drift).
   */
  @Post('faults/balance-drift')
  @HttpCode(200)
  balanceDrift(@Body() raw: unknown): { accountGroupUuid: string; ccy: string; balance: string } {
    const body = asBody(raw);
    const groupUuid = requiredString(body, 'accountGroupUuid');
    if (this.directory.group(groupUuid) === undefined) throw new NotFoundException('account group not found');
    const ccy = requiredString(body, 'ccy');
    this.ledger.creditSettled(groupUuid, ccy, heldAmount(body, 'amount', ccy));
    return { accountGroupUuid: groupUuid, ccy, balance: this.ledger.total(groupUuid, ccy).toString() };
  }

  /**
   * `{uuid, shape: "unreadable"|"unusual"|"bad-ccy"}`: the trade or transaction leg `uuid` is written so in the trade and
   * transaction lists from now on (rest/odd-rows.ts), until `DELETE /admin/faults/odd-rows`.
   */
  @Post('faults/odd-rows')
  @HttpCode(200)
  oddRow(@Body() raw: unknown): { rows: number } {
    const body = asBody(raw);
    const uuid = requiredString(body, 'uuid');
    const shape = requiredString(body, 'shape');
    if (!(ODD_ROW_SHAPES as readonly string[]).includes(shape)) {
      throw new BadRequestException(`shape must be one of ${ODD_ROW_SHAPES.join(', ')}`);
    }
    this.oddRows.set(uuid, shape as OddRowShape);
    return { rows: this.oddRows.size };
  }

  @Delete('faults/odd-rows')
  clearOddRows(): { rows: number } {
    this.oddRows.clear();
    return { rows: 0 };
  }

  /** `{skewMs}`: the venue clock runs ahead (positive) or behind (negative) real time. */
  @Post('clock')
  @HttpCode(200)
  skew(@Body() raw: unknown): { skewMs: number; now: number } {
    this.clock.setSkew(integerField(asBody(raw), 'skewMs'));
    return this.clockState();
  }

  @Get('clock')
  clockState(): { skewMs: number; now: number } {
    return { skewMs: this.clock.skew(), now: this.clock.now() };
  }
}
