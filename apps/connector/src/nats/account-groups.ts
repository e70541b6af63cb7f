import { errorReply, GatewayErrorCode, type AccountGroupsReply, type Subjects } from '#contracts';
import type { BusResponder, BusSubscription } from '#bus';
import type { AccountGroupSource } from './venue-ports.js';

/** `account-groups.get` request/reply: the venue's account groups, looked up over the session. */
export class AccountGroupsResponder {
  private subscription: BusSubscription | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly source: AccountGroupSource,
    private readonly responder: BusResponder,
  ) {}

  start(): void {
    this.subscription ??= this.responder.respondToAny({
      subject: this.subjects.accountGroups,
      kind: 'account-groups.get',
      handle: () => this.lookup(),
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  async lookup(): Promise<AccountGroupsReply> {
    try {
      const groups = await this.source.lookup();
      return {
        ok: true,
        accountGroups: groups.map(({ uuid, name, natural }) => ({ uuid, name, natural })),
      };
    } catch (error) {
      // The venue side's errors carry a code (NOT_CONNECTED, TIMEOUT, a venue code); anything else is ours.
      const code = errorCode(error) ?? GatewayErrorCode.Internal;
      return errorReply(code, error instanceof Error ? error.message : 'account-group lookup failed');
    }
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error;
  return typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? code : undefined;
}
