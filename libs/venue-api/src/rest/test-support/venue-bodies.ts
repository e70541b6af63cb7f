/** Response bodies as the venue writes them (§2, spec-gaps R2–R20), as raw JSON text for scripted tests. */

export function tradeJson(uuid: string, amount = '1234.56'): string {
  return `{"uuid":"${uuid}","createdAt":"2026-01-05T10:00:00Z","updatedAt":"2026-01-05T10:00:00Z",
    "tradeRef":"TR-${uuid}","clientRef":"cr-${uuid}","tradeSide":"BUY",
    "settlementAmount":{"amount":${amount},"currency":"USD"},"tradedAmount":{"amount":0.05,"currency":"BTC"},
    "user":"USR1","accountGroup":{"uuid":"ag-1","name":"Default"},"tradeClass":"RFS","state":"PENDING_SETTLEMENT",
    "settlementDate":"2026-01-07","quoteId":"q-1","executedPrice":"[BTC/USD] 24691.2","executorLogin":"api",
    "someFutureField":{"x":1}}`;
}

export function tradePageJson(uuids: string[], total: number | string): string {
  const totalText = typeof total === 'number' ? String(total) : JSON.stringify(total);
  return `{"data":[${uuids.map((uuid) => tradeJson(uuid)).join(',')}],"total":${totalText}}`;
}

export const originatorJson = `{"uuid":"11111111-1111-4111-8111-111111111111","type":"ENTITY","kind":"ORIGINATOR",
  "enabled":true,"verified":true,"vasp":false,"clientShortcode":"ACME","clientAccountGroupName":"Default",
  "clientAccountGroupUuid":"ag-1","email":"ops@acme.test","companyName":"Acme Ltd","countryOfRegistration":"GB",
  "address":{"street":"1 Main St","city":"London","country":"GB"},
  "kycDetails":{"occupation":"Trading","beneficiaryOwnership":true},
  "identifications":[{"type":"LEI","number":"5493001KJTIIGC8Y1R12"}],
  "associatedPersons":[{"uuid":"p-1","firstname":"Ada","lastname":"Lovelace","type":"INDIVIDUAL",
    "kind":"AUTHORIZED_SIGNATORY","enabled":null,"verified":null,"vasp":null}],
  "bankAccounts":[{"uuid":"ba-1","bankName":"Bank","currency":"USD","enabled":true,"verified":true,
    "networkIds":["SWIFT"]}],
  "wallets":[{"uuid":"w-1","asset":"BTC","walletAddress":"bc1q","type":"CUSTODY","default":true,"enabled":true,
    "whitelisted":true}]}`;

export function senderJson(uuid: string): string {
  return `{"uuid":"${uuid}","type":"INDIVIDUAL","kind":"SENDER","enabled":true,"verified":true,
    "firstname":"Grace","lastname":"Hopper","beneficiaryAddress":{"city":"Arlington","country":"US"}}`;
}

export function beneficiaryJson(uuid: string): string {
  return `{"uuid":"${uuid}","type":"ENTITY","kind":"BENEFICIARY","enabled":true,"verified":false,
    "companyName":"Payee GmbH","bankAccounts":[]}`;
}

function balance(value: string, ccy: string): string {
  return `{"value":"${value}","valueInt":"${value.replace('.', '')}","currency":"${ccy}","display":"${value} ${ccy}","displayShort":"${value} ${ccy}"}`;
}

export const balancesJson = `{"data":{"Created":"1700000000000","Language":"en","Login":"acme",
  "Rights":["trade","withdraw","get_info"],"Wallets":{"legacy":true},
  "Account_Groups":[{"AccountGroup_Uuid":"ag-1","AccountGroup_Name":"Default","Owner_Uuid":"u-1",
    "Owner_Name":"Acme","Owner_Shortcode":"ACME","Natural":true,
    "Accounts":{"USD":{"Balance":${balance('1000.00', 'USD')},"Available_Balance":${balance('900.00', 'USD')},
      "Brokerage_Available_Balance":${balance('800.00', 'USD')},"Unsettled_Sell_Balance":${balance('0.00', 'USD')},
      "Unsettled_Buy_Balance":${balance('0.00', 'USD')},"ccy":"USD","Owner_Uuid":"u-1","Uuid":"acc-1"}}}]},
  "userUuid":"u-1","timestamp":"1700000000123","resultCode":"OK"}`;

export const fiatWithdrawalRowJson = `{"uuid":"wd-1","amount":"100.50","ccy":"USD","state":"PENDING_APPROVAL",
  "withdrawalMethod":"BANK_WIRE","bankAccount":{"uuid":"ba-1","name":"Bank","alias":"main"},
  "accountGroupUuid":"ag-1","accountGroupName":"Default","requestor":"acme",
  "dateCreated":"2026-01-05T10:00:00.000+00:00","lastUpdated":"2026-01-05T10:00:00.000+00:00"}`;

export const cryptoWithdrawalRowJson = `{"uuid":"wd-2","amount":"0.00000001","ccy":"BTC","state":"FAILED",
  "coinAddress":"bc1q","wallet":{"uuid":"w-1"},"accountGroup":"Default","accountGroupUuid":"ag-1",
  "beneficiary":{"uuid":"e-1"},"dateCreated":"2026-01-05T10:00:00.000+00:00"}`;

export const transactionJson = `{"transactionClass":"RFSTRADE","uuid":"tx-1","userUuid":"u-1",
  "amount":12345678901234567890.123456789,"fee":0,"balanceBefore":1E-8,"balanceAfter":100.10,"ccy":"USD",
  "transactionState":"PENDING","transactionType":"TRADE_CREDIT","received":1700000000000,
  "processed":1700000000001,"timestampMillis":1700000000002,"displayTitle":null,"displayDescription":null,
  "paymentTransferType":null,"customRef":"cr-1","quoteId":"q-1","tradeId":"t-1","tradeRef":"TR-1",
  "executedPrice":"[BTC/USD] 24691.2","settleDate":"2026-01-07","beneficiaryUuid":null}`;
