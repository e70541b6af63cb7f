/** §4.12 published list of webhook source addresses (`ips.json`). */
import { JsonNumber } from '../../money/json-number.js';
import { integer, isJsonObject, listOf, MAX_TEXT_CHARS, optional, record, text, type Reader } from './shape.js';

/**
 * §4.12: "an object carrying a message and an effective_date", types not shown. Whatever non-null value the
 * venue sends is a notice (a change is announced); its fields are kept as text when they can be.
 */
export interface WebhookChangeNotice {
  message?: string;
  effective_date?: string;
  /** What was not as we guessed (a number kept as its text, a value left out), for the log; absent when none. */
  oddities?: string[];
}

export interface WebhookSourceAddresses {
  service?: string;
  /** Increments on each change of the list. */
  version: number;
  /** CIDR blocks; `/32` is a single address. */
  ipv4_cidrs: string[];
  created_at?: string;
  last_updated?: string;
  /** Null when no change is planned. */
  change_notice: WebhookChangeNotice | null;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof JsonNumber) return 'a number';
  if (isJsonObject(value)) return 'an object';
  return `a ${typeof value}`;
}

/** A string as sent (cut to MAX_TEXT_CHARS), a number as its JSON text; anything else is left out. */
function noticeText(value: unknown, name: string, oddities: string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  let found: string;
  if (typeof value === 'string') found = value;
  else if (value instanceof JsonNumber) {
    oddities.push(`${name}: a number, kept as its text`);
    found = value.text;
  } else {
    oddities.push(`${name}: ${kindOf(value)}, left out`);
    return undefined;
  }
  if (found.length <= MAX_TEXT_CHARS) return found;
  oddities.push(`${name}: cut to ${MAX_TEXT_CHARS} characters`);
  return found.slice(0, MAX_TEXT_CHARS);
}

/**
 * Never refuses the list: a notice whose fields are not the strings we guessed would otherwise fail the whole
 * document, the list would not load, and a sender the venue is moving to would get 403 (never retried, §6.1).
 * Any non-null value announces a change (the safe reading: an unlisted sender is then answered 503, retried).
 */
export const changeNoticeReader: Reader<WebhookChangeNotice | null> = {
  optional: false,
  read(value) {
    if (value === undefined || value === null) return null;
    const oddities: string[] = [];
    const notice: WebhookChangeNotice = {};
    if (isJsonObject(value)) {
      const message = noticeText(value['message'], 'message', oddities);
      const effectiveDate = noticeText(value['effective_date'], 'effective_date', oddities);
      if (message !== undefined) notice.message = message;
      if (effectiveDate !== undefined) notice.effective_date = effectiveDate;
    } else if (typeof value === 'string') {
      oddities.push('a string, not an object: taken as the message');
      const message = noticeText(value, 'message', oddities);
      if (message !== undefined) notice.message = message;
    } else {
      oddities.push(`${kindOf(value)}, not an object`);
    }
    if (oddities.length > 0) notice.oddities = oddities;
    return notice;
  },
};

export const webhookSourceAddressesReader: Reader<WebhookSourceAddresses> = record<WebhookSourceAddresses>({
  service: optional(text),
  version: integer,
  ipv4_cidrs: listOf(text),
  created_at: optional(text),
  last_updated: optional(text),
  change_notice: changeNoticeReader,
});
