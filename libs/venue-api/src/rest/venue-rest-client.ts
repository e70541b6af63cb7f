/**
 * The venue's REST operations (§4.3–§4.12) with the shapes of docs/spec-gaps.md (W1, R1–R20).
 * Each method returns a typed record or throws a `VenueRestError` subclass (see errors.ts) that keeps
 * the venue's own code and message. Bodies are parsed losslessly; decimals come back as strings.
 */
import type { VenueRestClientConfig } from './client-config.js';
import { VenueNotFoundError, VenueProtocolError } from './errors.js';
import { RestPath, withdrawalCancelPath, type WithdrawalKind } from './paths.js';
import type { RestRateLimiter } from './rate-limiter.js';
import { accountBalancesReader, type AccountBalances } from './records/balances.js';
import { pageOf, type Page } from './records/common.js';
import { orderStateReader, type OrderStateRecord } from './records/order-state.js';
import { tradablePairsReader, type TradablePair } from './records/pair.js';
import { participantReader, type Participant } from './records/participant.js';
import { ShapeError, listOf, rowsOf, type Reader } from './records/shape.js';
import { tokenReader, type WebSocketToken } from './records/token.js';
import { tradeReader, type Trade } from './records/trade.js';
import { transactionReader, type TransactionRecord } from './records/transaction.js';
import { transferPageOf, type TransferRecord } from './records/transfer.js';
import { creditLimitsReader, type CreditLimits } from './records/user-limit.js';
import { webhookSourceAddressesReader, type WebhookSourceAddresses } from './records/webhook-ips.js';
import {
  unshownAcknowledgementReader,
  withdrawalAcknowledgementReader,
  withdrawalRequestReader,
  type CryptoWithdrawalAcknowledgement,
  type WithdrawalAcknowledgement,
  type WithdrawalRequest,
} from './records/withdrawal.js';
import {
  checkComment,
  checkIdentifier,
  checkIntegerRange,
  checkNonBlank,
  positiveDecimalText,
  withdrawalAmount,
} from './request-checks.js';
import type {
  BalancesQuery,
  BeneficiaryQuery,
  CryptoWithdrawalRequest,
  FiatWithdrawalRequest,
  ParticipantQuery,
  SenderQuery,
  TradeFilter,
  TradePageRequest,
  TransactionFilter,
  TransferFilter,
  TransferPageRequest,
  TransferRequest,
} from './requests.js';
import { SignedRequestSender, type VenueCall, type VenueReply } from './signed-request-sender.js';
import { walkPages, walkToTotal, type Listing } from './pagination.js';

const TRADE_PAGE_MAX = 200;
/** AS4: the crypto scale is not shown; refuse client-side only what no asset could take. */
const CRYPTO_DEFAULT_PRECISION = 18;
const BENEFICIARY_PAGE_MAX = 50;
const SENDER_PAGE_MAX = 200;
const TRANSACTION_FILTER_FIELDS = [
  'from',
  'to',
  'ccy',
  'transactionClass',
  'accountGroupUuid',
  'transactionType',
  'transactionState',
  'max',
  'offset',
] as const satisfies ReadonlyArray<keyof TransactionFilter>;
const TRANSFER_PAGE_FIELDS = [
  'accountGroupUuid',
  'ccy',
  'from',
  'to',
  'state',
  'max',
  'offset',
] as const satisfies ReadonlyArray<keyof TransferPageRequest>;

/** Drops undefined values so they neither reach the body nor the signature. */
function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * The named body fields of `source`, in this order, undefined ones dropped. Only named fields: a stray
 * property on a caller's object (or a `tonce`/`nonce`) must never reach the signed body.
 */
function bodyOf<T extends object>(source: T, fields: ReadonlyArray<keyof T & string>): Record<string, unknown> {
  return definedOnly(Object.fromEntries(fields.map((field) => [field, source[field]])));
}

/** A withdrawal submit's options. */
export interface WithdrawalSendOptions {
  /**
   * Awaited once, after any wait for the request budget and right before the request is made (not before a
   * retry of the same send: a 429 or the one re-send after a 401). Its rejection sends nothing and is thrown.
   */
  beforeSend?: () => Promise<void>;
}

function sendHook(options: WithdrawalSendOptions): Pick<VenueCall, 'beforeSend'> {
  return options.beforeSend !== undefined ? { beforeSend: options.beforeSend } : {};
}

const TRADE_PAGE_FIELDS = [
  'tradeRef',
  'clientRef',
  'tradeState',
  'tradeSide',
  'tradeClass',
  'from',
  'to',
  'accountGrpUuid',
  'max',
  'offset',
] as const satisfies ReadonlyArray<keyof TradePageRequest>;

export class VenueRestClient {
  private readonly sender: SignedRequestSender;
  private readonly tokenPath: string | undefined;
  private readonly webhookIpsUrl: string;
  private readonly events: VenueRestClientConfig['events'];

  constructor(config: VenueRestClientConfig) {
    this.sender = new SignedRequestSender(config);
    this.events = config.events;
    this.tokenPath = config.tokenPath;
    this.webhookIpsUrl = config.webhookIpsUrl ?? `${this.sender.origin}${RestPath.WebhookIps}`;
  }

  /** The client's limiter (queue length and pause state, for metrics). */
  get limiter(): RestRateLimiter {
    return this.sender.limiter;
  }

  /** §4.3, W1: a single-use WebSocket token, valid 30 s. The token is a secret: never log it. */
  async createWebSocketToken(): Promise<WebSocketToken> {
    const operation = 'createWebSocketToken';
    const reply = await this.call({ operation, path: RestPath.Token, family: 'standard', stateChanging: false });
    return this.read(operation, tokenReader(this.tokenPath), reply);
  }

  /** §4.4 balances (§2.6). */
  async getBalances(query: BalancesQuery = {}): Promise<AccountBalances> {
    const operation = 'getBalances';
    const reply = await this.call({
      operation,
      path: RestPath.Balances,
      family: 'standard',
      stateChanging: false,
      body: bodyOf(query, ['filterZeroBalanceAccounts', 'accountGroupUuid']),
    });
    return this.read(operation, accountBalancesReader, reply);
  }

  /**
   * §4.5 one page of trades: `{data, total, rows}`; `total` counts every match. A row without a usable `uuid` is
   * left out and told (`onRowSkipped`); `rows` still counts it (page by `rows`, never `data.length`).
   */
  async listTrades(request: TradePageRequest = {}): Promise<Page<Trade>> {
    const operation = 'listTrades';
    checkIntegerRange(operation, 'max', request.max, 1, TRADE_PAGE_MAX);
    checkIntegerRange(operation, 'offset', request.offset, 0, Number.MAX_SAFE_INTEGER);
    const reply = await this.call({
      operation,
      path: RestPath.Trades,
      family: 'standard',
      stateChanging: false,
      body: bodyOf(request, TRADE_PAGE_FIELDS),
    });
    return this.read(operation, pageOf(tradeReader, this.skipped(operation)), reply);
  }

  /** Every trade matching `filter`, page by page (pages of `pageSize`, default 200), newest first. */
  iterateTrades(filter: TradeFilter = {}, pageSize = TRADE_PAGE_MAX): AsyncGenerator<Trade> {
    checkIntegerRange('listTrades', 'max', pageSize, 1, TRADE_PAGE_MAX);
    return walkPages((max, offset) => this.listTrades({ ...filter, max, offset }), pageSize);
  }

  async listAllTrades(filter: TradeFilter = {}, pageSize = TRADE_PAGE_MAX): Promise<Trade[]> {
    const trades: Trade[] = [];
    for await (const trade of this.iterateTrades(filter, pageSize)) trades.push(trade);
    return trades;
  }

  /**
   * §4.6 account details of the onboarded entity for an account group (Default when omitted).
   * Undefined when the venue has no originator record for the group (404 with an empty body); any
   * other 404 is a `VenueNotFoundError`.
   */
  async getAccountDetails(query: ParticipantQuery = {}): Promise<Participant | undefined> {
    const operation = 'getAccountDetails';
    try {
      const reply = await this.call({
        operation,
        path: RestPath.Originator,
        family: 'participant',
        stateChanging: false,
        body: bodyOf(query, ['accountGroupUuid', 'userUuid']),
      });
      return this.read(operation, participantReader, reply);
    } catch (error) {
      if (error instanceof VenueNotFoundError && error.emptyBody) return undefined;
      throw error;
    }
  }

  /**
   * §4.8 beneficiaries (`limit` at most 50, checked here rather than by an `INVALID_PARAMETERS` round trip). A row
   * that cannot be read is left out and told (`onRowSkipped`); `rows` still counts it.
   */
  async listBeneficiaries(query: BeneficiaryQuery = {}): Promise<Page<Participant>> {
    const operation = 'listBeneficiaries';
    checkIntegerRange(operation, 'limit', query.limit, 1, 50);
    checkIntegerRange(operation, 'offset', query.offset, 0, Number.MAX_SAFE_INTEGER);
    const reply = await this.call({
      operation,
      path: RestPath.Beneficiaries,
      family: 'participant',
      stateChanging: false,
      body: bodyOf(query, ['accountGroupUuid', 'limit', 'offset', 'userUuid']),
    });
    return this.read(operation, pageOf(participantReader, this.skipped(operation)), reply);
  }

  /**
   * AS6: every beneficiary, page by page (`limit` ≤ 50). The participants service may page shorter than
   * asked (its own default), so the walk goes on until `total` records were read (or an empty page).
   */
  async listAllBeneficiaries(
    query: ParticipantQuery = {},
    pageSize = BENEFICIARY_PAGE_MAX,
  ): Promise<Listing<Participant>> {
    checkIntegerRange('listBeneficiaries', 'limit', pageSize, 1, BENEFICIARY_PAGE_MAX);
    return walkToTotal((limit, offset) => this.listBeneficiaries({ ...query, limit, offset }), pageSize);
  }

  /** AS6: every sender, page by page, read to `total` like beneficiaries. */
  async listAllSenders(
    query: Omit<SenderQuery, 'limit' | 'offset'> = {},
    pageSize = SENDER_PAGE_MAX,
  ): Promise<Listing<Participant>> {
    checkIntegerRange('listSenders', 'limit', pageSize, 1, SENDER_PAGE_MAX);
    return walkToTotal((limit, offset) => this.listSenders({ ...query, limit, offset }), pageSize);
  }

  /** §4.7 senders; `total` is read whether the venue sends a number or a string. Rows read like beneficiaries. */
  async listSenders(query: SenderQuery = {}): Promise<Page<Participant>> {
    const operation = 'listSenders';
    checkIntegerRange(operation, 'limit', query.limit, 1, 200);
    checkIntegerRange(operation, 'offset', query.offset, 0, Number.MAX_SAFE_INTEGER);
    const reply = await this.call({
      operation,
      path: RestPath.Senders,
      family: 'standard',
      stateChanging: false,
      body: bodyOf(query, ['accountGroupUuid', 'limit', 'offset']),
    });
    return this.read(operation, pageOf(participantReader, this.skipped(operation)), reply);
  }

  /**
   * §4.9 submit a fiat withdrawal (BANK_WIRE). The amount is checked (positive, ≤ 2 decimals as written)
   * before anything is sent. A 500, a timeout or a lost connection is `VenueOutcomeUnknownError`: list
   * withdrawals before resending. Never retried except after a definitive auth failure in nonce mode.
   */
  async submitFiatWithdrawal(
    request: FiatWithdrawalRequest,
    options: WithdrawalSendOptions = {},
  ): Promise<WithdrawalAcknowledgement> {
    const operation = 'submitFiatWithdrawal';
    checkNonBlank(operation, 'accountGroupUuid', request.accountGroupUuid);
    checkNonBlank(operation, 'ccy', request.ccy);
    checkNonBlank(operation, 'bankAccountUuid', request.bankAccountUuid);
    checkComment(operation, request.clientComment);
    const amount = withdrawalAmount(operation, request.amount, 2);
    const reply = await this.call({
      operation,
      path: RestPath.WithdrawalFiat,
      family: 'withdrawal',
      stateChanging: true,
      ...sendHook(options),
      body: definedOnly({
        accountGroupUuid: request.accountGroupUuid,
        ccy: request.ccy,
        amount,
        withdrawalMethod: 'BANK_WIRE',
        bankAccountUuid: request.bankAccountUuid,
        clientComment: request.clientComment,
      }),
    });
    return this.read(operation, withdrawalAcknowledgementReader, reply);
  }

  /**
   * R6 submit a crypto withdrawal to a registered, enabled and whitelisted wallet. Same outcome rules as fiat, but
   * its response is not shown (§4.9): any 2xx saying nothing contrary, a 204 included, is an acknowledgement, with
   * the `uuid` when it carries one (WD7); without it the request is found in the crypto list by its reference.
   */
  async submitCryptoWithdrawal(
    request: CryptoWithdrawalRequest,
    options: WithdrawalSendOptions = {},
  ): Promise<CryptoWithdrawalAcknowledgement> {
    const operation = 'submitCryptoWithdrawal';
    checkNonBlank(operation, 'accountGroupUuid', request.accountGroupUuid);
    checkNonBlank(operation, 'ccy', request.ccy);
    checkNonBlank(operation, 'walletUuid', request.walletUuid);
    checkComment(operation, request.clientComment);
    const precision = request.precision ?? CRYPTO_DEFAULT_PRECISION;
    checkIntegerRange(operation, 'precision', precision, 0, 18);
    const amount = withdrawalAmount(operation, request.amount, precision);
    const reply = await this.call({
      operation,
      path: RestPath.WithdrawalCrypto,
      family: 'withdrawal',
      stateChanging: true,
      emptySuccessBody: true,
      ...sendHook(options),
      body: definedOnly({
        accountGroupUuid: request.accountGroupUuid,
        ccy: request.ccy,
        amount,
        walletUuid: request.walletUuid,
        clientComment: request.clientComment,
      }),
    });
    return this.read(operation, unshownAcknowledgementReader, reply);
  }

  /** §4.9 every fiat withdrawal request of every group where the caller holds ROLE_OPERATIONS (bare array). */
  listFiatWithdrawals(): Promise<WithdrawalRequest[]> {
    return this.listWithdrawals('fiat');
  }

  listCryptoWithdrawals(): Promise<WithdrawalRequest[]> {
    return this.listWithdrawals('crypto');
  }

  /** §4.9 cancel; `accountGroupUuid` goes in the signed body, never the query string. 409 when not cancellable. */
  cancelFiatWithdrawal(uuid: string, accountGroupUuid: string): Promise<WithdrawalAcknowledgement> {
    return this.cancelWithdrawal('fiat', uuid, accountGroupUuid);
  }

  /** As fiat, but its response is not shown (§4.9): any 2xx saying nothing contrary acknowledges `uuid` (WD7). */
  cancelCryptoWithdrawal(uuid: string, accountGroupUuid: string): Promise<WithdrawalAcknowledgement> {
    return this.cancelWithdrawal('crypto', uuid, accountGroupUuid);
  }

  /**
   * §4.10 order state by `clientRequestId` (query string, unsigned). Always an array; an empty array is
   * not proof that no order exists (reconcile through the trade list's `clientRef`).
   */
  async getOrderState(clientRequestId: string): Promise<OrderStateRecord[]> {
    const operation = 'getOrderState';
    checkIdentifier(operation, 'clientRequestId', clientRequestId);
    const reply = await this.call({
      operation,
      path: RestPath.OrderState,
      family: 'standard',
      stateChanging: false,
      query: { clientRequestId },
    });
    return this.read(operation, listOf(orderStateReader), reply);
  }

  /**
   * R9 transaction history (one record per leg), newest first. A leg that cannot be stored (no usable uuid,
   * state, amount or currency) is left out and told (`onRowSkipped`); `rows` still counts it.
   */
  async listTransactions(filter: TransactionFilter = {}): Promise<Page<TransactionRecord>> {
    const operation = 'listTransactions';
    checkIntegerRange(operation, 'max', filter.max, 1, 200);
    checkIntegerRange(operation, 'offset', filter.offset, 0, Number.MAX_SAFE_INTEGER);
    const reply = await this.call({
      operation,
      path: RestPath.TransactionList,
      family: 'standard',
      stateChanging: false,
      body: bodyOf(filter, TRANSACTION_FILTER_FIELDS),
    });
    return this.read(operation, pageOf(transactionReader, this.skipped(operation)), reply);
  }

  async listAllTransactions(
    filter: Omit<TransactionFilter, 'max' | 'offset'> = {},
    pageSize = 200,
  ): Promise<TransactionRecord[]> {
    const legs: TransactionRecord[] = [];
    for await (const leg of this.iterateTransactions(filter, pageSize)) legs.push(leg);
    return legs;
  }

  /** Every transaction leg matching `filter` (its max/offset are ignored), page by page, newest first. */
  iterateTransactions(
    filter: Omit<TransactionFilter, 'max' | 'offset'> = {},
    pageSize = 200,
  ): AsyncGenerator<TransactionRecord> {
    checkIntegerRange('listTransactions', 'max', pageSize, 1, 200);
    return walkPages((max, offset) => this.listTransactions({ ...filter, max, offset }), pageSize);
  }

  /**
   * R10/AS3 one page of internal transfers, filters and paging sent; every field of a record kept. A row without an
   * identifier is left out and told (`onRowSkipped`); `rows` still counts it.
   */
  async listTransfers(request: TransferPageRequest = {}): Promise<Page<TransferRecord>> {
    const operation = 'listTransfers';
    checkIntegerRange(operation, 'max', request.max, 1, 200);
    checkIntegerRange(operation, 'offset', request.offset, 0, Number.MAX_SAFE_INTEGER);
    const reply = await this.call({
      operation,
      path: RestPath.TransferList,
      family: 'standard',
      stateChanging: false,
      body: bodyOf(request, TRANSFER_PAGE_FIELDS),
    });
    return this.read(operation, transferPageOf(this.skipped(operation)), reply);
  }

  /** Every transfer matching `filter`, page by page until a short page. */
  iterateTransfers(filter: TransferFilter = {}, pageSize = 200): AsyncGenerator<TransferRecord> {
    checkIntegerRange('listTransfers', 'max', pageSize, 1, 200);
    return walkPages((max, offset) => this.listTransfers({ ...filter, max, offset }), pageSize);
  }

  /** R10 transfer between account groups (needs Move Funds). A 5xx or lost response is outcome-unknown. */
  async transfer(request: TransferRequest): Promise<WithdrawalAcknowledgement> {
    const operation = 'transfer';
    checkNonBlank(operation, 'accountGroupUuid', request.accountGroupUuid);
    checkNonBlank(operation, 'toAccountGroupUuid', request.toAccountGroupUuid);
    checkNonBlank(operation, 'ccy', request.ccy);
    const amount = positiveDecimalText(operation, 'amount', request.amount);
    const reply = await this.call({
      operation,
      path: RestPath.Transfer,
      family: 'standard',
      stateChanging: true,
      body: {
        accountGroupUuid: request.accountGroupUuid,
        toAccountGroupUuid: request.toAccountGroupUuid,
        ccy: request.ccy,
        amount,
      },
    });
    return this.read(operation, withdrawalAcknowledgementReader, reply);
  }

  /** R11/AS1 credit limits, read liberally (shape not shown). */
  async getCreditLimits(): Promise<CreditLimits> {
    const operation = 'getCreditLimits';
    const reply = await this.call({ operation, path: RestPath.UserLimit, family: 'standard', stateChanging: false });
    return this.read(operation, creditLimitsReader, reply);
  }

  /** R12/AS2 pairs available to the account, read liberally (shape not shown). */
  async listPairs(): Promise<TradablePair[]> {
    const operation = 'listPairs';
    const reply = await this.call({ operation, path: RestPath.Pairs, family: 'standard', stateChanging: false });
    return this.read(operation, tradablePairsReader, reply);
  }

  /** §4.12 the webhook source address list (unsigned GET). */
  async getWebhookSourceAddresses(): Promise<WebhookSourceAddresses> {
    const operation = 'getWebhookSourceAddresses';
    const reply = await this.sender.getUnsigned(operation, this.webhookIpsUrl);
    return this.read(operation, webhookSourceAddressesReader, reply);
  }

  private async listWithdrawals(kind: WithdrawalKind): Promise<WithdrawalRequest[]> {
    const operation = kind === 'fiat' ? 'listFiatWithdrawals' : 'listCryptoWithdrawals';
    const reply = await this.call({
      operation,
      path: kind === 'fiat' ? RestPath.WithdrawalFiatList : RestPath.WithdrawalCryptoList,
      family: 'withdrawal',
      stateChanging: false,
    });
    return this.read(operation, rowsOf(withdrawalRequestReader, this.skipped(operation)), reply);
  }

  private async cancelWithdrawal(
    kind: WithdrawalKind,
    uuid: string,
    accountGroupUuid: string,
  ): Promise<WithdrawalAcknowledgement> {
    const operation = kind === 'fiat' ? 'cancelFiatWithdrawal' : 'cancelCryptoWithdrawal';
    checkNonBlank(operation, 'uuid', uuid);
    checkNonBlank(operation, 'accountGroupUuid', accountGroupUuid);
    const reply = await this.call({
      operation,
      path: withdrawalCancelPath(kind, uuid),
      family: 'withdrawal',
      stateChanging: true,
      // fiat's answer is shown ({success: true, uuid}) and read as shown; crypto's is not
      ...(kind === 'crypto' ? { emptySuccessBody: true } : {}),
      body: { accountGroupUuid },
    });
    if (kind === 'fiat') return this.read(operation, withdrawalAcknowledgementReader, reply);
    this.read(operation, unshownAcknowledgementReader, reply);
    // the request cancelled is the one the path names (an answer may name none)
    return { uuid };
  }

  /** A list row of `operation` left out: told to the events hook (metric, log) by its path and problem only. */
  private skipped(operation: string): (error: ShapeError) => void {
    return (error) => this.events?.onRowSkipped?.(operation, error.message);
  }

  private call(call: VenueCall): Promise<VenueReply> {
    return this.sender.send(call);
  }

  private read<T>(operation: string, reader: Reader<T>, reply: VenueReply): T {
    try {
      return reader.read(reply.body, 'body');
    } catch (error) {
      if (error instanceof ShapeError) {
        throw new VenueProtocolError({ operation, status: reply.status }, error.message);
      }
      throw error;
    }
  }
}
