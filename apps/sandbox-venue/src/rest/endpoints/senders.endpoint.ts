/** §4.7 `POST /api/3/senders`: limit 1–200 (default 50; `max` accepted as its other name), offset. */
import { Inject, Injectable } from '@nestjs/common';
import { RestPath } from '#venue-api';
import { VenueDirectory } from '../../domain/directory.js';
import { optionalInteger, optionalString } from '../body-fields.js';
import { invalidAccountGroupReply, invalidParameterReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';
import { partyWire } from './participants.endpoint.js';

@Injectable()
export class SendersEndpoint implements VenueEndpoints {
  constructor(@Inject(VenueDirectory) private readonly directory: VenueDirectory) {}

  routes(): VenueRoute[] {
    return [
      {
        template: RestPath.Senders,
        pattern: exactPath(RestPath.Senders),
        family: 'general',
        handle: (c) => this.list(c),
      },
    ];
  }

  private list(call: SignedCall): VenueReply {
    const bad = (message: string): VenueReply => invalidParameterReply('general', message, call.now);
    const group = optionalString(call.body, 'accountGroupUuid');
    const limit = optionalInteger(call.body, 'limit');
    const max = optionalInteger(call.body, 'max');
    const offset = optionalInteger(call.body, 'offset');
    if (!group.ok) return bad('accountGroupUuid must be a string');
    if (!limit.ok || !max.ok) return bad('limit must be an integer');
    const size = limit.value ?? max.value ?? 50;
    if (size < 1 || size > 200) return bad('limit must be 1 to 200');
    if (!offset.ok || (offset.value !== undefined && offset.value < 0))
      return bad('offset must be a non-negative integer');
    const groupUuid = group.value ?? this.directory.defaultGroupOf(call.user.uuid)?.uuid;
    if (groupUuid === undefined || !this.directory.canAccessGroup(call.user.uuid, groupUuid)) {
      return invalidAccountGroupReply();
    }
    const all = this.directory.sendersOf(call.user.uuid).filter((s) => s.clientAccountGroupUuid === groupUuid);
    const start = offset.value ?? 0;
    return {
      status: 200,
      body: { data: all.slice(start, start + size).map(partyWire), total: all.length },
    };
  }
}
