/**
 * §2.6 account balances, with the venue's own property names. The deprecated `Wallets` and
 * `Secondary_Wallets` are not read (§9): use `Account_Groups`.
 */
import { decimalText, digitsOrText, flag, listOf, mapOf, optional, record, text, type Reader } from './shape.js';

export type KeyRight = 'trade' | 'withdraw' | 'get_info';

export interface BalanceDetail {
  /** Decimal string (R20: plain, at the currency's precision). */
  value: string;
  /** Integer in the smallest unit, as text. */
  valueInt?: string;
  currency?: string;
  display?: string;
  displayShort?: string;
}

export interface CurrencyAccount {
  /** Total including unsettled: settled + Unsettled_Buy − Unsettled_Sell. */
  Balance: BalanceDetail;
  /** Available for withdrawal. */
  Available_Balance: BalanceDetail;
  /** Available for new trades. */
  Brokerage_Available_Balance: BalanceDetail;
  Unsettled_Sell_Balance?: BalanceDetail;
  Unsettled_Buy_Balance?: BalanceDetail;
  ccy?: string;
  Owner_Uuid?: string;
  Uuid?: string;
}

export interface AccountGroupBalances {
  AccountGroup_Uuid: string;
  AccountGroup_Name?: string;
  Owner_Uuid?: string;
  Owner_Name?: string;
  Owner_Shortcode?: string;
  /** True for the primary Default group. */
  Natural?: boolean;
  /** Currency code → account. */
  Accounts: Record<string, CurrencyAccount>;
}

export interface BalancesData {
  Created?: string;
  Language?: string;
  Login?: string;
  /** Key rights (`trade`, `withdraw`, `get_info`); unknown rights are kept as text. */
  Rights?: string[];
  Account_Groups: AccountGroupBalances[];
}

export interface AccountBalances {
  data: BalancesData;
  userUuid?: string;
  /** Epoch milliseconds as text. */
  timestamp?: string;
  resultCode?: string;
}

const balanceDetail = record<BalanceDetail>({
  value: decimalText,
  valueInt: optional(digitsOrText),
  currency: optional(text),
  display: optional(text),
  displayShort: optional(text),
});

const currencyAccount = record<CurrencyAccount>({
  Balance: balanceDetail,
  Available_Balance: balanceDetail,
  Brokerage_Available_Balance: balanceDetail,
  Unsettled_Sell_Balance: optional(balanceDetail),
  Unsettled_Buy_Balance: optional(balanceDetail),
  ccy: optional(text),
  Owner_Uuid: optional(text),
  Uuid: optional(text),
});

const accountGroup = record<AccountGroupBalances>({
  AccountGroup_Uuid: text,
  AccountGroup_Name: optional(text),
  Owner_Uuid: optional(text),
  Owner_Name: optional(text),
  Owner_Shortcode: optional(text),
  Natural: optional(flag),
  Accounts: mapOf(currencyAccount),
});

export const accountBalancesReader: Reader<AccountBalances> = record<AccountBalances>({
  data: record<BalancesData>({
    Created: optional(digitsOrText),
    Language: optional(text),
    Login: optional(text),
    Rights: optional(listOf(text)),
    Account_Groups: listOf(accountGroup),
  }),
  userUuid: optional(text),
  timestamp: optional(digitsOrText),
  resultCode: optional(text),
});
