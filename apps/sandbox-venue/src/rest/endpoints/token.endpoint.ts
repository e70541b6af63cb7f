/** W1: `POST /api/3/svc/rest/auth/token` issues a single-use WebSocket token (§4.3, §5). */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { RestPath } from '#venue-api';
import { SANDBOX_CONFIG, type SandboxConfig } from '../../config.js';
import { tokenResponseBody } from '../../dialect.js';
import { WsTokenRegistry } from '../../domain/tokens.js';
import { authFailureReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';

@Injectable()
export class TokenEndpoint implements VenueEndpoints {
  constructor(
    @Inject(WsTokenRegistry) private readonly tokens: WsTokenRegistry,
    @Optional() @Inject(SANDBOX_CONFIG) private readonly config?: SandboxConfig,
  ) {}

  routes(): VenueRoute[] {
    return [
      { template: RestPath.Token, pattern: exactPath(RestPath.Token), family: 'token', handle: (c) => this.issue(c) },
    ];
  }

  private issue(call: SignedCall): VenueReply {
    // Streaming and trading need the key's `trade` right (§5.6).
    if (!call.key.rights.includes('trade')) return authFailureReply('token', 'signature', call.now);
    const { token, expiresAt } = this.tokens.issue(call.user.uuid);
    // The body's shape is not shown by §4.3: the dialect picks `{token}`, `{data:{token}}` or a bare string.
    const envelope = { expiresAt: String(expiresAt), resultCode: 'OK', timestamp: String(Math.trunc(call.now)) };
    return { status: 200, body: tokenResponseBody(this.config?.dialect.tokenResponse ?? 'token', token, envelope) };
  }
}
