/** REST operation paths (§4.3–§4.11), with a leading slash as sent; signatures drop it (§5.2). */
export const RestPath = {
  Token: '/api/3/svc/rest/auth/token',
  Balances: '/api/3/account',
  Trades: '/api/3/trades',
  Originator: '/api/3/originator',
  Senders: '/api/3/senders',
  Beneficiaries: '/api/3/beneficiaries',
  WithdrawalFiat: '/api/3/withdrawal/fiat',
  WithdrawalCrypto: '/api/3/withdrawal/crypto',
  WithdrawalFiatList: '/api/3/withdrawal/fiat/list',
  WithdrawalCryptoList: '/api/3/withdrawal/crypto/list',
  OrderState: '/api/3/svc/rest/orders/state',
  TransactionList: '/api/3/transaction/list',
  TransferList: '/api/3/transfer/list',
  Transfer: '/api/3/transfer',
  UserLimit: '/api/3/user/limit',
  Pairs: '/api/3/pairs',
  WebhookIps: '/.well-known/webhooks/ips.json',
} as const;
export type RestPath = (typeof RestPath)[keyof typeof RestPath];

export type WithdrawalKind = 'fiat' | 'crypto';

export function withdrawalCancelPath(kind: WithdrawalKind, uuid: string): string {
  return `/api/3/withdrawal/${kind}/${encodeURIComponent(uuid)}/cancel`;
}

/** Header names (§5.1). */
export const RestHeader = { Key: 'Rest-Key', Sign: 'Rest-Sign' } as const;
