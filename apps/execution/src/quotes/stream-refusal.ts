/**
 * What a quote request answers when the connector did not grant its price stream (`stream.subscribe` replied
 * `{ok:false, error}`): `QUOTE_REFUSED` when the refusal judges the request itself — the venue's definitive
 * subscribe codes (§7.1: instrument, currency, quantity, tenor, account group, pair disabled, no price at that size,
 * pair or tenor) or the connector's own `INVALID_REQUEST` — since the same request gets the same answer (save
 * `RFS100011` during a venue halt, which passes when the instrument resumes: its message says so, W24); otherwise
 * `QUOTE_UNAVAILABLE`, which passes (the connector busy, at its stream limit, its session not open, the venue's
 * acknowledgement late, the service's own failure, a code §7.1 does not name). The code the connector answered is in
 * `values` (bounded): `venueCode` when it is the venue's, `connectorCode` when it is the connector's.
 */
import { boundedText, ExecutionErrorCode, GatewayErrorCode } from '#contracts';
import { DEFINITIVE_SUBSCRIBE_REFUSALS, describeVenueCode, VenueCode, venueCodeInfo } from '#venue-api';

export interface QuoteRefusal {
  ok: false;
  code: typeof ExecutionErrorCode.QuoteRefused | typeof ExecutionErrorCode.QuoteUnavailable;
  message: string;
  /** The code the connector answered: `venueCode` (the venue's, passed through) or `connectorCode` (its own). */
  values?: Record<string, string>;
}

/** Refusals by the connector itself that judge the request: asked again, it is refused again. */
const DEFINITIVE_CONNECTOR_REFUSALS: ReadonlySet<string> = new Set<string>([GatewayErrorCode.InvalidRequest]);

/** A venue error number (`RFS100011`, `PRE200035`): the venue's full list is not shown (§7.1). */
const VENUE_NUMBER = /^[A-Z]{3}\d{6}$/;

const MAX_CODE = 64;

/**
 * What to do after a refusal of the request itself. "No price at that size, pair or tenor" is also what a venue
 * answers for an instrument it has halted, until it resumes (spec-gaps W24): the same request may pass later.
 */
function nextStep(code: string): string {
  const change = 'change it (instrument, quantity, currency, tenor, accountGroup)';
  if (code === VenueCode.NoPrice) {
    return (
      'no price now: if the venue halted the instrument (its price stream ended stopped, code INSTRUMENT_HALTED) ' +
      `this passes when it resumes — ask again later, not in a loop; otherwise ${change}`
    );
  }
  return `the same request gets the same answer: ${change} rather than asking again`;
}

/** The refusal of a quote request whose stream the connector refused with `code` and `message`. */
export function streamRefusal(error: { code?: unknown; message?: unknown } | undefined): QuoteRefusal {
  const code = boundedText(typeof error?.code === 'string' && error.code !== '' ? error.code : 'UNKNOWN', MAX_CODE);
  const said = typeof error?.message === 'string' ? error.message : '';
  const byVenue = VENUE_NUMBER.test(code) || venueCodeInfo(code) !== undefined;
  const values: Record<string, string> = byVenue ? { venueCode: code } : { connectorCode: code };
  const named = byVenue ? describeVenueCode(code) : code;
  if (DEFINITIVE_SUBSCRIBE_REFUSALS.has(code) || DEFINITIVE_CONNECTOR_REFUSALS.has(code)) {
    return {
      ok: false,
      code: ExecutionErrorCode.QuoteRefused,
      message: boundedText(
        `${byVenue ? 'the venue' : 'the connector'} refused the price stream of this quote request: ${named} ${said}; ` +
          nextStep(code),
      ),
      values,
    };
  }
  return {
    ok: false,
    code: ExecutionErrorCode.QuoteUnavailable,
    message: boundedText(`the connector did not grant the price stream now: ${named} ${said}; ask again`),
    values,
  };
}

/** The connector did not answer `stream.subscribe` (no responder, a timeout): passes once it is back. No code. */
export function streamUnanswered(error: unknown): QuoteRefusal {
  return {
    ok: false,
    code: ExecutionErrorCode.QuoteUnavailable,
    message: boundedText(
      `the connector did not answer the price stream request: ${error instanceof Error ? error.message : String(error)}; ask again`,
    ),
  };
}
