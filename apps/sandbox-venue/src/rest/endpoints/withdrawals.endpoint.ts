/**
 * §4.9 withdrawals: submit, list and cancel, fiat and crypto (crypto per spec-gaps R6/R7). Checks in this
 * order, first failure wins (§7.2): Move Funds on the key (403) → field validation (403 `Invalid signed
 * params`) → ROLE_OPERATIONS on the group (403) → business rules (422) / cancel target (404) and state (409).
 * A crypto submit's or cancel's success is answered as the dialect says (`cryptoWithdrawalReply`, WD7).
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { SANDBOX_CONFIG, type SandboxConfig } from '../../config.js';
import { Decimal } from '../../money.js';
import { RestPath } from '#venue-api';
import { VenueDirectory } from '../../domain/directory.js';
import { WithdrawalBook, type WithdrawalKind } from '../../domain/withdrawals.js';
import { currencyInfo } from '../../reference/currencies.js';
import { numberText, optionalString, scaleOf } from '../body-fields.js';
import { withdrawalError, WithdrawalMessage as M } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';
import { withdrawalRow } from './withdrawal-rows.js';

const CRYPTO_SCALE = 8;
const COMMENT_MAX = 1024;
const invalid = (): VenueReply => withdrawalError(403, M.InvalidSignedParams);

interface CommonFields {
  groupUuid: string;
  ccy: string;
  amount: Decimal;
  clientComment: string | undefined;
}

@Injectable()
export class WithdrawalsEndpoint implements VenueEndpoints {
  constructor(
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(WithdrawalBook) private readonly book: WithdrawalBook,
    @Optional() @Inject(SANDBOX_CONFIG) private readonly config?: SandboxConfig,
  ) {}

  /** Fiat's success is shown (`{success: true, uuid}`); crypto's is not, and is played in the dialect's reading. */
  private success(kind: WithdrawalKind, uuid: string): VenueReply {
    const reading = kind === 'crypto' ? (this.config?.dialect.cryptoWithdrawalReply ?? 'success-uuid') : 'success-uuid';
    if (reading === 'no-content') return { status: 204 };
    if (reading === 'success-only') return { status: 200, body: { success: true } };
    return { status: 200, body: { success: true, uuid } };
  }

  routes(): VenueRoute[] {
    const route = (template: string, pattern: RegExp, handle: (c: SignedCall) => VenueReply): VenueRoute => ({
      template,
      pattern,
      family: 'withdrawal',
      handle: (c) => (c.key.rights.includes('withdraw') ? handle(c) : withdrawalError(403, M.MoveFundsRequired)),
    });
    return [
      route(RestPath.WithdrawalFiat, exactPath(RestPath.WithdrawalFiat), (c) => this.submitFiat(c)),
      route(RestPath.WithdrawalCrypto, exactPath(RestPath.WithdrawalCrypto), (c) => this.submitCrypto(c)),
      route(RestPath.WithdrawalFiatList, exactPath(RestPath.WithdrawalFiatList), (c) => this.list(c, 'fiat')),
      route(RestPath.WithdrawalCryptoList, exactPath(RestPath.WithdrawalCryptoList), (c) => this.list(c, 'crypto')),
      route('/api/3/withdrawal/fiat/{uuid}/cancel', /^\/api\/3\/withdrawal\/fiat\/([^/]+)\/cancel$/, (c) =>
        this.cancel(c, 'fiat'),
      ),
      route('/api/3/withdrawal/crypto/{uuid}/cancel', /^\/api\/3\/withdrawal\/crypto\/([^/]+)\/cancel$/, (c) =>
        this.cancel(c, 'crypto'),
      ),
    ];
  }

  private common(call: SignedCall, kind: WithdrawalKind): CommonFields | undefined {
    const group = optionalString(call.body, 'accountGroupUuid');
    const ccy = optionalString(call.body, 'ccy');
    const comment = optionalString(call.body, 'clientComment');
    const amountText = numberText(call.body, 'amount');
    if (!group.ok || !ccy.ok || !comment.ok || amountText === undefined) return undefined;
    if (group.value === undefined || group.value === '' || ccy.value === undefined) return undefined;
    const info = currencyInfo(ccy.value);
    if (info === undefined || info.kind !== (kind === 'fiat' ? 'fiat' : 'crypto')) return undefined;
    // §4.9: the scale is judged on the number as sent (`1.230` has three decimals).
    // R6, W38: crypto at most 8 decimals and never finer than the asset holds (SHIB 0)
    if (scaleOf(amountText) > (kind === 'fiat' ? 2 : Math.min(CRYPTO_SCALE, info.precision))) return undefined;
    const amount = new Decimal(amountText);
    if (!amount.isFinite() || amount.lte(0)) return undefined;
    if (comment.value !== undefined && comment.value.length > COMMENT_MAX) return undefined;
    return { groupUuid: group.value, ccy: ccy.value, amount, clientComment: comment.value };
  }

  private submitFiat(call: SignedCall): VenueReply {
    const fields = this.common(call, 'fiat');
    const method = optionalString(call.body, 'withdrawalMethod');
    const bankUuid = optionalString(call.body, 'bankAccountUuid');
    if (fields === undefined || !method.ok || method.value !== 'BANK_WIRE') return invalid();
    if (!bankUuid.ok || bankUuid.value === undefined || bankUuid.value === '') return invalid();
    if (!this.directory.hasOperationsRole(call.user.uuid, fields.groupUuid))
      return withdrawalError(403, M.NoPermission);
    const bank = this.directory.originatorOf(fields.groupUuid)?.bankAccounts.find((b) => b.uuid === bankUuid.value);
    if (bank === undefined) return withdrawalError(422, M.BankNotFound);
    if (!bank.enabled || !bank.verified) return withdrawalError(422, M.BankUnusable);
    if (bank.currency !== fields.ccy) return withdrawalError(422, M.BankCurrency);
    if (fields.amount.gt(this.book.headroom(fields.groupUuid, fields.ccy)))
      return withdrawalError(422, M.InsufficientFunds);
    const request = this.book.submit({
      kind: 'fiat',
      amount: fields.amount,
      ccy: fields.ccy,
      accountGroupUuid: fields.groupUuid,
      requestorUuid: call.user.uuid,
      bankAccountUuid: bank.uuid,
      walletUuid: undefined,
      coinAddress: undefined,
      clientComment: fields.clientComment,
    });
    return { status: 200, body: { success: true, uuid: request.uuid } };
  }

  private submitCrypto(call: SignedCall): VenueReply {
    const fields = this.common(call, 'crypto');
    const walletUuid = optionalString(call.body, 'walletUuid');
    if (fields === undefined || !walletUuid.ok || walletUuid.value === undefined || walletUuid.value === '') {
      return invalid();
    }
    if (!this.directory.hasOperationsRole(call.user.uuid, fields.groupUuid))
      return withdrawalError(403, M.NoPermission);
    const wallet = this.directory.originatorOf(fields.groupUuid)?.wallets.find((w) => w.uuid === walletUuid.value);
    if (wallet === undefined) return withdrawalError(422, M.WalletNotFound);
    if (!wallet.enabled || !wallet.whitelisted) return withdrawalError(422, M.WalletUnusable);
    if (wallet.asset !== fields.ccy) return withdrawalError(422, M.WalletAsset);
    if (fields.amount.gt(this.book.headroom(fields.groupUuid, fields.ccy)))
      return withdrawalError(422, M.InsufficientFunds);
    const request = this.book.submit({
      kind: 'crypto',
      amount: fields.amount,
      ccy: fields.ccy,
      accountGroupUuid: fields.groupUuid,
      requestorUuid: call.user.uuid,
      bankAccountUuid: undefined,
      walletUuid: wallet.uuid,
      coinAddress: wallet.walletAddress,
      clientComment: fields.clientComment,
    });
    return this.success('crypto', request.uuid);
  }

  /** Bare array over every group where the caller holds ROLE_OPERATIONS; the body's group is ignored. */
  private list(call: SignedCall, kind: WithdrawalKind): VenueReply {
    const groups = new Set(this.directory.groupsWithOperationsRole(call.user.uuid).map((g) => g.uuid));
    const fiatRow = this.config?.dialect.fiatWithdrawalRow;
    return { status: 200, body: this.book.list(kind, groups).map((r) => withdrawalRow(r, this.directory, fiatRow)) };
  }

  /** The group is read from the signed body only; a query-string value is unsigned and never read. */
  private cancel(call: SignedCall, kind: WithdrawalKind): VenueReply {
    const group = optionalString(call.body, 'accountGroupUuid');
    if (!group.ok || group.value === undefined || group.value === '') return invalid();
    if (!this.directory.hasOperationsRole(call.user.uuid, group.value)) return withdrawalError(403, M.NoPermission);
    const request = this.book.find(call.params[0] ?? '');
    if (request === undefined || request.kind !== kind || request.accountGroupUuid !== group.value) {
      return withdrawalError(404, M.NotFound);
    }
    if (!this.book.isCancellable(request)) return withdrawalError(409, M.NotCancellable);
    this.book.cancel(request);
    return this.success(kind, request.uuid);
  }
}
