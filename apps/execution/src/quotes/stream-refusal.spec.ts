import { describe, expect, it } from '@jest/globals';
import { DEFINITIVE_SUBSCRIBE_REFUSALS } from '#venue-api';
import { streamRefusal, streamUnanswered } from './stream-refusal.js';

describe('streamRefusal: a refused price stream of a quote request', () => {
  it.each([...DEFINITIVE_SUBSCRIBE_REFUSALS])(
    'the venue judged the request itself (%s): QUOTE_REFUSED with the venue code',
    (code) => {
      const refusal = streamRefusal({ code, message: 'Account group not found' });

      expect(refusal).toMatchObject({ ok: false, code: 'QUOTE_REFUSED', values: { venueCode: code } });
      expect(refusal.message).toContain(code);
      expect(refusal.message).toContain('Account group not found');
    },
  );

  it('no price now (RFS100011): QUOTE_REFUSED whose message does not say "never ask again" — a venue halt answers it until the instrument resumes (W24)', () => {
    const refusal = streamRefusal({ code: 'RFS100011', message: 'No price for this instrument' });

    expect(refusal).toMatchObject({ code: 'QUOTE_REFUSED', values: { venueCode: 'RFS100011' } });
    expect(refusal.message).not.toContain('the same request gets the same answer');
    expect(refusal.message).toContain('halted');
    expect(refusal.message).toContain('INSTRUMENT_HALTED');
    expect(refusal.message).toContain('No price for this instrument');
  });

  it.each([...DEFINITIVE_SUBSCRIBE_REFUSALS].filter((code) => code !== 'RFS100011'))(
    'a refusal of the request itself that no halt explains (%s): the same request gets the same answer',
    (code) => {
      expect(streamRefusal({ code, message: '' }).message).toContain('the same request gets the same answer');
    },
  );

  it('the connector judged the request invalid: QUOTE_REFUSED with the connector code', () => {
    expect(streamRefusal({ code: 'INVALID_REQUEST', message: 'tenor must be one subject token' })).toMatchObject({
      code: 'QUOTE_REFUSED',
      values: { connectorCode: 'INVALID_REQUEST' },
    });
  });

  it.each(['BUSY', 'STREAM_LIMIT', 'TIMEOUT', 'NOT_CONNECTED', 'INTERNAL', 'SHUTDOWN', 'SUBSCRIBE_FAILED'])(
    'the connector could not grant it now (%s): QUOTE_UNAVAILABLE, the retry class, with the connector code',
    (code) => {
      expect(streamRefusal({ code, message: 'ask again later' })).toMatchObject({
        code: 'QUOTE_UNAVAILABLE',
        values: { connectorCode: code },
      });
    },
  );

  it.each(['RFS100013', 'RFS100017', 'MESSAGE_RATE_LIMITED', 'RFS999999'])(
    'a venue refusal that may pass (%s: its own failure, a rate limit, a code §7.1 does not name): QUOTE_UNAVAILABLE with the venue code',
    (code) => {
      expect(streamRefusal({ code, message: '' })).toMatchObject({
        code: 'QUOTE_UNAVAILABLE',
        values: { venueCode: code },
      });
    },
  );

  it('bounds what a connector sends: a 10 kB code and message come back short', () => {
    const refusal = streamRefusal({ code: 'X'.repeat(10_000), message: 'y'.repeat(10_000) });

    expect(refusal.code).toBe('QUOTE_UNAVAILABLE');
    expect(refusal.values?.['connectorCode']?.length).toBeLessThan(100);
    expect(refusal.message.length).toBeLessThan(600);
  });

  it('a reply without a code or message is still answered (retry class)', () => {
    expect(streamRefusal(undefined)).toMatchObject({ code: 'QUOTE_UNAVAILABLE', values: { connectorCode: 'UNKNOWN' } });
  });

  it('no answer from the connector: QUOTE_UNAVAILABLE, no code to name', () => {
    const refusal = streamUnanswered(new Error('no responders'));

    expect(refusal).toMatchObject({ code: 'QUOTE_UNAVAILABLE' });
    expect(refusal.values).toBeUndefined();
    expect(refusal.message).toContain('no responders');
  });
});
