import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Query } from '@nestjs/common';
import { Market } from '../market/market.js';
import { sidePrices } from '../quotes/quote-pricing.js';
import { formatPrice } from '../market/price-format.js';
import { AdminInput } from './admin-input.js';

/** Operator controls of the market (issue 3): move it, halt (W11), silence and resume instruments. */
@Controller('admin/market')
export class MarketAdminController {
  constructor(@Inject(Market) private readonly market: Market) {}

  @Get()
  list(): unknown[] {
    return this.market.instruments().map((info) => this.view(info.instrument));
  }

  @Post(':instrument/mid')
  @HttpCode(200)
  setMid(@Param('instrument') instrument: string, @Body() body: unknown, @Query() query: Record<string, unknown>) {
    const mid = new AdminInput(body, query).decimal('mid');
    if (!this.market.setMid(this.known(instrument), mid)) throw new NotFoundException('mid must be positive');
    return this.view(instrument);
  }

  /** `percent` may be negative: "-5" drops the mid by 5 %. */
  @Post(':instrument/jump')
  @HttpCode(200)
  jump(@Param('instrument') instrument: string, @Body() body: unknown, @Query() query: Record<string, unknown>) {
    const percent = new AdminInput(body, query).decimal('percent');
    if (!this.market.jump(this.known(instrument), percent))
      throw new NotFoundException('jump would make the mid non-positive');
    return this.view(instrument);
  }

  @Post(':instrument/halt')
  @HttpCode(200)
  halt(@Param('instrument') instrument: string, @Body() body: unknown, @Query() query: Record<string, unknown>) {
    const message = new AdminInput(body, query).optionalString('message');
    this.market.halt(this.known(instrument), message);
    return this.view(instrument);
  }

  /** Its streams stop updating without a streamStop: a price feed gone quiet, seen by the client as silence. */
  @Post(':instrument/silence')
  @HttpCode(200)
  silence(@Param('instrument') instrument: string) {
    this.market.silence(this.known(instrument));
    return this.view(instrument);
  }

  @Post(':instrument/resume')
  @HttpCode(200)
  resume(@Param('instrument') instrument: string) {
    this.market.resume(this.known(instrument));
    return this.view(instrument);
  }

  private known(instrument: string): string {
    if (this.market.instrument(instrument) === undefined)
      throw new NotFoundException(`Unknown instrument ${instrument}`);
    return instrument;
  }

  private view(instrument: string): Record<string, unknown> {
    const info = this.market.instrument(instrument);
    const mid = this.market.mid(instrument);
    if (info === undefined || mid === undefined) throw new NotFoundException(`Unknown instrument ${instrument}`);
    const { offer, bid } = sidePrices(info, mid);
    return {
      instrument,
      mid: mid.toFixed(),
      offer: formatPrice(offer),
      bid: formatPrice(bid),
      halted: this.market.isHalted(instrument),
      silenced: this.market.isSilenced(instrument),
    };
  }
}
