/** Parameters of the REST client's operations (§4.4–§4.11, R6, R9, R10). */
import type { TradeClass, TradeSide, TradeState } from './records/trade.js';
import type { TransactionClass, TransactionState, TransactionType } from './records/transaction.js';

export interface BalancesQuery {
  /** True: only non-zero currencies (otherwise 100+ currencies come back). */
  filterZeroBalanceAccounts?: boolean;
  accountGroupUuid?: string;
}

export interface TradeFilter {
  tradeRef?: string;
  clientRef?: string;
  tradeState?: Exclude<TradeState, 'FAILED'>;
  tradeSide?: TradeSide;
  tradeClass?: TradeClass;
  /** ISO 8601 date-time, on createdAt. */
  from?: string;
  to?: string;
  accountGrpUuid?: string;
}

export interface TradePageRequest extends TradeFilter {
  /** 1–200, venue default 50. */
  max?: number;
  offset?: number;
}

export interface ParticipantQuery {
  accountGroupUuid?: string;
  /** Master API keys only (§4.1). */
  userUuid?: string;
}

export interface BeneficiaryQuery extends ParticipantQuery {
  /** At most 50 (§4.8); checked before sending. */
  limit?: number;
  offset?: number;
}

export interface SenderQuery {
  accountGroupUuid?: string;
  /** 1–200 (§4.7). */
  limit?: number;
  offset?: number;
}

export interface FiatWithdrawalRequest {
  accountGroupUuid: string;
  ccy: string;
  /** Decimal string with at most 2 decimals as written (§4.9); sent as a JSON number with this text. */
  amount: string;
  bankAccountUuid: string;
  clientComment?: string;
}

export interface CryptoWithdrawalRequest {
  accountGroupUuid: string;
  ccy: string;
  /** Decimal string with at most `precision` decimals as written (R6). */
  amount: string;
  walletUuid: string;
  clientComment?: string;
  /**
   * Most decimals the amount may carry, checked before sending. Default 18 (AS4: the crypto scale is not
   * shown, so the client refuses only what no asset could take); pass the asset's scale when known.
   */
  precision?: number;
}

export interface TransactionFilter {
  from?: string;
  to?: string;
  ccy?: string;
  transactionClass?: TransactionClass;
  /** AS5: narrowing by group, type and state (names as the record's own fields). */
  accountGroupUuid?: string;
  transactionType?: TransactionType;
  transactionState?: TransactionState;
  /** 1–200, default 50 (R9). */
  max?: number;
  offset?: number;
}

export interface TransferRequest {
  accountGroupUuid: string;
  toAccountGroupUuid: string;
  ccy: string;
  /** Decimal string (R10). */
  amount: string;
}

/** R10/AS3 transfer list filters and paging (names guessed as the other lists'; unknown ones are ignored). */
export interface TransferFilter {
  accountGroupUuid?: string;
  ccy?: string;
  /** ISO 8601 date-time. */
  from?: string;
  to?: string;
  state?: string;
}

export interface TransferPageRequest extends TransferFilter {
  /** 1–200. */
  max?: number;
  offset?: number;
}
