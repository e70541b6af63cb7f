/**
 * Participant endpoints (§4.6 account details, §4.8 beneficiaries): failures come back as HTTP 200 with a
 * `resultCode` (§7.3); account details answer 404 with an empty body when the resolved group has no
 * originator record. `userUuid` is for master keys only; the sandbox has none, so it is ignored (§4.1).
 */
import { Inject, Injectable } from '@nestjs/common';
import { RestPath } from '#venue-api';
import { VenueDirectory } from '../../domain/directory.js';
import type { PartyRecord } from '../../domain/model.js';
import type { WireValue } from '../../http/json.js';
import { optionalInteger, optionalString } from '../body-fields.js';
import { invalidParameterReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';

const LIMIT_CAP = 50;

@Injectable()
export class ParticipantsEndpoint implements VenueEndpoints {
  constructor(@Inject(VenueDirectory) private readonly directory: VenueDirectory) {}

  routes(): VenueRoute[] {
    return [
      {
        template: RestPath.Originator,
        pattern: exactPath(RestPath.Originator),
        family: 'participant',
        handle: (c) => this.originator(c),
      },
      {
        template: RestPath.Beneficiaries,
        pattern: exactPath(RestPath.Beneficiaries),
        family: 'participant',
        handle: (c) => this.beneficiaries(c),
      },
    ];
  }

  private originator(call: SignedCall): VenueReply {
    const invalid = invalidParameterReply('participant', '', call.now);
    const group = optionalString(call.body, 'accountGroupUuid');
    const limit = optionalInteger(call.body, 'limit');
    const offset = optionalInteger(call.body, 'offset');
    if (!group.ok || !limit.ok || !offset.ok || !optionalString(call.body, 'userUuid').ok) return invalid;
    // §4.6: limit is validated with a cap of 50, then ignored (a single record is always requested).
    if (limit.value !== undefined && (limit.value < 0 || limit.value > LIMIT_CAP)) return invalid;
    const groupUuid = group.value ?? this.directory.defaultGroupOf(call.user.uuid)?.uuid;
    if (groupUuid === undefined || !this.directory.canAccessGroup(call.user.uuid, groupUuid)) return { status: 404 };
    const record = this.directory.originatorOf(groupUuid);
    if (record === undefined) return { status: 404 };
    return { status: 200, body: partyWire(record) };
  }

  private beneficiaries(call: SignedCall): VenueReply {
    const invalid = invalidParameterReply('participant', '', call.now);
    const group = optionalString(call.body, 'accountGroupUuid');
    const limit = optionalInteger(call.body, 'limit');
    const offset = optionalInteger(call.body, 'offset');
    if (!group.ok || !limit.ok || !offset.ok || !optionalString(call.body, 'userUuid').ok) return invalid;
    if (limit.value !== undefined && (limit.value < 1 || limit.value > LIMIT_CAP)) return invalid;
    if (offset.value !== undefined && offset.value < 0) return invalid;
    const groupUuid = group.value ?? this.directory.defaultGroupOf(call.user.uuid)?.uuid;
    if (groupUuid === undefined || !this.directory.canAccessGroup(call.user.uuid, groupUuid)) return invalid;
    const all = this.directory.beneficiariesOf(call.user.uuid).filter((b) => b.clientAccountGroupUuid === groupUuid);
    const start = offset.value ?? 0;
    const page = all.slice(start, start + (limit.value ?? LIMIT_CAP));
    return { status: 200, body: { data: page.map(partyWire), total: all.length } };
  }
}

/** §2.5 record as sent. */
export function partyWire(p: PartyRecord): WireValue {
  return p as unknown as WireValue;
}
