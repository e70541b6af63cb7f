/**
 * Withdrawals through the account-sync app (docs/account-sync.md): submit (the idempotency key names one
 * request for ever: a repeat returns it, never a second one), cancel, get, list the venue's own lists, and
 * follow the state changes. A submit of unknown outcome stays UNKNOWN until the venue's lists settle it.
 */
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import {
  WithdrawalSubjects,
  type WithdrawalKind,
  type WithdrawalSubmitRequest,
  type WithdrawalListItem,
  type WithdrawalStateChanged,
  type WithdrawalView,
} from '#contracts';
import { changeFeed } from './change-feed.js';
import { gatewayRequest, type ClientContext } from './client-context.js';

/** A submit (`WithdrawalSubmitRequest`) whose idempotency key defaults to a new uuid (a retry must pass the same). */
export type WithdrawalRequest = Omit<WithdrawalSubmitRequest, 'idempotencyKey'> & { idempotencyKey?: string };

/** The gateway's requestId or the caller's idempotency key. */
export type WithdrawalRef = { requestId: string } | { idempotencyKey: string };

export class WithdrawalsApi {
  readonly subjects: WithdrawalSubjects;

  constructor(private readonly context: ClientContext) {
    this.subjects = new WithdrawalSubjects(context.subjects.prefix, context.subjects.account);
  }

  /**
   * Submits one request. No answer in time rejects with an `OutcomeUnknownError` carrying the idempotency key
   * sent (a generated one too): submit again with that key, never a new one, or `get({ idempotencyKey })`.
   */
  async submit(request: WithdrawalRequest): Promise<WithdrawalView> {
    const idempotencyKey = request.idempotencyKey ?? randomUUID();
    return (
      await gatewayRequest<{ ok: true; withdrawal: WithdrawalView }>(
        this.context,
        this.subjects.submit,
        { ...request, idempotencyKey },
        { what: 'withdrawal', idempotencyKey },
        this.context.venueWriteTimeoutMs,
      )
    ).withdrawal;
  }

  /**
   * Waits for the venue like `submit` (`venueWriteTimeoutMs`). `accountGroupUuid`: needed only for a request
   * restored from a venue's fiat row that showed none (its `accountGroupUuid` reads `''`; WD9).
   */
  async cancel(ref: WithdrawalRef & { accountGroupUuid?: string }): Promise<WithdrawalView> {
    return (
      await gatewayRequest<{ ok: true; withdrawal: WithdrawalView }>(
        this.context,
        this.subjects.cancel,
        ref,
        undefined,
        this.context.venueWriteTimeoutMs,
      )
    ).withdrawal;
  }

  async get(ref: WithdrawalRef): Promise<WithdrawalView> {
    return (await gatewayRequest<{ ok: true; withdrawal: WithdrawalView }>(this.context, this.subjects.get, ref))
      .withdrawal;
  }

  /** The venue's lists (every API-raised request of the account's groups), newest first. */
  async list(request: { kind?: WithdrawalKind; limit?: number } = {}): Promise<{
    withdrawals: WithdrawalListItem[];
    truncated: boolean;
  }> {
    const reply = await gatewayRequest<{ ok: true; withdrawals: WithdrawalListItem[]; truncated: boolean }>(
      this.context,
      this.subjects.list,
      request,
    );
    return { withdrawals: reply.withdrawals, truncated: reply.truncated };
  }

  /** Live state changes of every withdrawal from now on, in order, none lost to a reconnect (change-feed.ts). */
  changes$(): Observable<WithdrawalStateChanged> {
    return changeFeed<WithdrawalStateChanged>(this.context, this.subjects.allChanged, 'account-sync app');
  }
}
