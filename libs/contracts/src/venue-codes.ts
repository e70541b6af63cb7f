/**
 * The shapes of venue codes the gateway sends to the venue or takes from it, one place each (docs/spec-gaps.md
 * WD10, WH15): checked before any venue call, so a malformed value never reaches a venue URL or body.
 */

/**
 * An account group's identifier: a UUID (§2.3 "the account-group UUID", §2.5 `uuid` "string UUID"), written as
 * 8-4-4-4-12 hexadecimal digits in either case. The version and variant digits are not checked: the spec shows none.
 */
export const ACCOUNT_GROUP_UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
export const ACCOUNT_GROUP_UUID_RULE = 'accountGroupUuid must be a UUID (8-4-4-4-12 hexadecimal digits)';

/**
 * Whether two account-group identifiers name one group: the same text, or two UUIDs differing only in the case of
 * their hexadecimal digits (a UUID is case-insensitive; WD10 takes either case). Anything else is compared as written.
 */
export function sameAccountGroup(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return ACCOUNT_GROUP_UUID.test(a) && ACCOUNT_GROUP_UUID.test(b) && a.toLowerCase() === b.toLowerCase();
}

/**
 * A venue record's own identifier the gateway sends back (a bank account's or wallet's `uuid`: §2.5 types them only
 * "uuid", §4.9 "string"): liberal in shape, but 1-128 visible characters, no white space, `/`, control, format
 * (bidi, zero-width) or line-separator character and no lone surrogate — it goes into a venue body.
 */
export const VENUE_REFERENCE = /^[^\s/\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]{1,128}$/u;
export const venueReferenceRule = (field: string): string =>
  `${field} must be 1-128 characters without white space, /, control or format characters`;

/**
 * A currency or asset code (§4.9 "supported by the platform", §2.9 "Currency."): 1-16 visible characters, no white
 * space, control, format or line-separator character, no lone surrogate. The same rule for a code the gateway sends
 * (withdrawals), one a caller filters on (`acct.balance.query`, `acct.transaction-list.query`) and one it takes from
 * the venue (a transaction leg's `ccy`).
 */
export const CURRENCY_CODE = /^[^\s\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]{1,16}$/u;
export const CURRENCY_CODE_RULE = '1-16 characters without white space, control or format characters';
/** The refusal of a `ccy` field or filter that is no currency code: names the field, never shows the value. */
export const CCY_RULE = `ccy must be a currency code: ${CURRENCY_CODE_RULE}`;

export function isCurrencyCode(value: string): boolean {
  return CURRENCY_CODE.test(value);
}
