import { currencyInfo } from '../../reference/currencies.js';

/**
 * networkId resolution on the subscribe acknowledgement (§2.1): the supplied value is echoed; otherwise
 * `SVC_TRANSFER` for a crypto beneficiary payout, `SVC_SENDER` for a sender collection, and for a fiat
 * payout the network of that corridor (spec-gaps W21: this table).
 */
const FIAT_CORRIDOR_NETWORKS: Readonly<Record<string, string>> = {
  USD: 'FEDWIRE',
  EUR: 'SEPA',
  GBP: 'FPS',
  JPY: 'SWIFT',
};
const DEFAULT_FIAT_NETWORK = 'SWIFT';

export function payoutNetwork(payoutCurrency: string): string {
  if (currencyInfo(payoutCurrency)?.kind === 'crypto') return 'SVC_TRANSFER';
  return FIAT_CORRIDOR_NETWORKS[payoutCurrency] ?? DEFAULT_FIAT_NETWORK;
}

export const SENDER_NETWORK = 'SVC_SENDER';
