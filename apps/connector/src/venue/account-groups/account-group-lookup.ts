import type { AccountGroupsReply, ServiceMessage } from '#venue-api';
import type { VenueClock } from '../clock.js';
import type { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { VenueChannel } from '../session/venue-channel.js';

export interface AccountGroup {
  uuid: string;
  name: string;
  natural: boolean;
}

/** The lookup failed; `code` is a gateway code (NOT_CONNECTED, TIMEOUT) or VENUE_REFUSED. */
export class AccountGroupLookupError extends Error {
  override readonly name = 'AccountGroupLookupError';
  constructor(
    readonly code: 'NOT_CONNECTED' | 'TIMEOUT' | 'VENUE_REFUSED',
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (groups: AccountGroup[]) => void;
  reject: (error: AccountGroupLookupError) => void;
}

/** Account-group lookup over the socket (W12), correlated by requestId, bounded by a timeout. */
export class AccountGroupLookup {
  private readonly pending = new Map<string, Pending>();
  private nextRequest = 1;

  constructor(
    private readonly channel: VenueChannel,
    private readonly limiter: OutboundLimiter,
    private readonly clock: VenueClock,
    private readonly timeoutMs: number,
  ) {
    channel.addFrameListener((message) => this.onFrame(message));
  }

  async lookup(): Promise<AccountGroup[]> {
    if (!this.channel.isOpen) throw new AccountGroupLookupError('NOT_CONNECTED', 'the venue session is not open');
    const requestId = `ag-${this.clock.now().toString(36)}-${(this.nextRequest++).toString(36)}`;
    const answer = new Promise<AccountGroup[]>((resolve, reject) => {
      const cancel = this.clock.setTimeout(() => {
        this.pending.delete(requestId);
        reject(new AccountGroupLookupError('TIMEOUT', 'no account-group reply from the venue in time'));
      }, this.timeoutMs);
      this.pending.set(requestId, {
        resolve: (groups) => {
          cancel();
          resolve(groups);
        },
        reject: (error) => {
          cancel();
          reject(error);
        },
      });
    });
    // The timeout runs from the call, not from the send: a limiter that holds the request (a backlog, or
    // cleared at shutdown and never resolving) must not keep the caller waiting, nor leave `answer`
    // rejected with no one listening (an unhandled rejection ends the process).
    await Promise.race([this.limiter.acquire('accountGroups'), answer]);
    if (!this.pending.has(requestId)) return answer;
    if (!this.channel.send({ messageType: 'accountGroups', requestId })) {
      this.pending.get(requestId)?.reject(new AccountGroupLookupError('NOT_CONNECTED', 'the venue session closed'));
      this.pending.delete(requestId);
    }
    return answer;
  }

  private onFrame(message: ServiceMessage): void {
    if (message.messageType !== 'accountGroups') return;
    const reply: AccountGroupsReply = message;
    // A venue that does not echo requestId answers the oldest question.
    const requestId = reply.requestId ?? this.pending.keys().next().value;
    if (requestId === undefined) return;
    const waiter = this.pending.get(requestId);
    if (waiter === undefined) return;
    this.pending.delete(requestId);
    // Only an explicit refusal is one: a reply without `success` (its fields are not shown, W12) is read.
    if (reply.success === false) {
      waiter.reject(new AccountGroupLookupError('VENUE_REFUSED', 'the venue refused the account-group lookup'));
      return;
    }
    const groups = Array.isArray(reply.accountGroups) ? reply.accountGroups : [];
    waiter.resolve(
      groups
        .filter((g) => typeof g.uuid === 'string')
        .map((g) => ({ uuid: g.uuid, name: g.name ?? '', natural: g.natural === true })),
    );
  }
}
