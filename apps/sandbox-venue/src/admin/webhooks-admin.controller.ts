/** Webhook controls: target URL, duplicate and out-of-order deliveries, the published address list. */
import { BadRequestException, Body, Controller, Get, HttpCode, Inject, NotFoundException, Post } from '@nestjs/common';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { WebhookIpList, type ChangeNotice } from '../webhooks/webhook-ips.js';
import { asBody, optionalText, requiredString, type AdminBody } from './admin-input.js';

@Controller('admin/webhooks')
export class WebhooksAdminController {
  constructor(
    @Inject(WebhookDispatcher) private readonly dispatcher: WebhookDispatcher,
    @Inject(WebhookIpList) private readonly ips: WebhookIpList,
  ) {}

  /** `{url: string|null}` */
  @Post('url')
  @HttpCode(200)
  setUrl(@Body() raw: unknown): { url: string | null } {
    const url = optionalText(asBody(raw), 'url');
    if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) throw new BadRequestException('url must be http(s)');
    this.dispatcher.setTarget(url);
    return { url: url ?? null };
  }

  @Get()
  state(): { url: string | null; pending: number } {
    return { url: this.dispatcher.targetUrl() ?? null, pending: this.dispatcher.pendingDeliveries() };
  }

  /** `{transactionUuid}`: the latest notification of that transaction is sent again. */
  @Post('duplicate')
  @HttpCode(200)
  duplicate(@Body() raw: unknown): { queued: true } {
    if (!this.dispatcher.duplicate(requiredString(asBody(raw), 'transactionUuid'))) {
      throw new NotFoundException('no notification for that transaction');
    }
    return { queued: true };
  }

  /** `{transactionUuid}`: its first (PENDING) notification is sent again, after the newer state. */
  @Post('stale')
  @HttpCode(200)
  stale(@Body() raw: unknown): { queued: true } {
    if (!this.dispatcher.resendStale(requiredString(asBody(raw), 'transactionUuid'))) {
      throw new NotFoundException('no notification for that transaction');
    }
    return { queued: true };
  }

  /** The next notification is held back and delivered after the one that follows it. */
  @Post('swap-next')
  @HttpCode(200)
  swapNext(): { armed: true } {
    this.dispatcher.swapNext();
    return { armed: true };
  }

  /** `{ipv4_cidrs: string[], change_notice?: {message, effective_date} | null}` */
  @Post('ips')
  @HttpCode(200)
  setIps(@Body() raw: unknown): unknown {
    const body = asBody(raw);
    const cidrs = body['ipv4_cidrs'];
    if (!Array.isArray(cidrs) || !cidrs.every((c) => typeof c === 'string' && /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(c))) {
      throw new BadRequestException('ipv4_cidrs must be an array of CIDR strings');
    }
    this.ips.setCidrs(cidrs as string[], changeNotice(body));
    return this.ips.document();
  }
}

function changeNotice(body: AdminBody): ChangeNotice | null {
  const notice = body['change_notice'];
  if (notice === undefined || notice === null) return null;
  const n = asBody(notice);
  return { message: requiredString(n, 'message'), effective_date: requiredString(n, 'effective_date') };
}
