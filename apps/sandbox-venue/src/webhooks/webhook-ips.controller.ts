import { Controller, Get, Header, Inject } from '@nestjs/common';
import { RestPath } from '#venue-api';
import { writeJson } from '../http/json.js';
import { WebhookIpList } from './webhook-ips.js';

/** §4.12 `GET {ips_url}`: unsigned, public. */
@Controller()
export class WebhookIpsController {
  constructor(@Inject(WebhookIpList) private readonly ips: WebhookIpList) {}

  @Get(RestPath.WebhookIps)
  @Header('Content-Type', 'application/json')
  document(): string {
    return writeJson(this.ips.document());
  }
}
