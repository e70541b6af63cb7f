import { describe, expect, it } from '@jest/globals';
import type { ServiceMessage } from '#venue-api';
import { MetricsRegistry } from '#observability';
import { OutboundLimiter } from '../outbound/outbound-limiter.js';
import { FakeChannel } from '../testing/fake-channel.js';
import { FakeClock } from '#testing';
import { VenueMetrics } from '../venue-metrics.js';
import { AccountGroupLookup, AccountGroupLookupError } from './account-group-lookup.js';

function setup() {
  const clock = new FakeClock(0);
  const channel = new FakeChannel();
  const metrics = new VenueMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
  const limiter = new OutboundLimiter({ messagesPerWindow: 30, windowMs: 1_000, orderIntervalMs: 250 }, clock, metrics);
  const lookup = new AccountGroupLookup(channel, limiter, clock, 2_000);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { clock, channel, lookup, settle };
}

/** The venue's answer to the newest lookup sent, with these fields. */
function reply(channel: FakeChannel, fields: { success?: boolean; accountGroups: unknown[] }): void {
  const requestId = channel.sentOfType('accountGroups').at(-1)?.requestId ?? '';
  channel.deliver({ messageType: 'accountGroups', chanId: 'c', timestamp: 1, requestId, ...fields } as ServiceMessage);
}

describe('AccountGroupLookup', () => {
  it('correlates the reply by requestId and keeps only uuid, name and natural', async () => {
    const { channel, lookup, settle } = setup();
    channel.up();
    const answer = lookup.lookup();
    await settle();
    const [request] = channel.sentOfType('accountGroups');
    expect(request?.requestId).toEqual(expect.any(String));
    channel.deliver({
      messageType: 'accountGroups',
      chanId: 'c',
      timestamp: 1,
      requestId: request?.requestId ?? '',
      success: true,
      accountGroups: [
        { uuid: 'g-1', name: 'Default', natural: true, ownerShortcode: 'X' },
        { uuid: 'g-2', name: 'Sub', natural: false },
      ],
    });
    expect(await answer).toEqual([
      { uuid: 'g-1', name: 'Default', natural: true },
      { uuid: 'g-2', name: 'Sub', natural: false },
    ]);
  });

  it('reads a reply without success whose entries carry only a uuid (its fields are not shown, W12)', async () => {
    const { channel, lookup, settle } = setup();
    channel.up();
    const answer = lookup.lookup();
    await settle();
    reply(channel, { accountGroups: [{ uuid: 'g-9' }] });
    expect(await answer).toEqual([{ uuid: 'g-9', name: '', natural: false }]);
  });

  it('fails with NOT_CONNECTED without a session, TIMEOUT without a reply, VENUE_REFUSED on success:false', async () => {
    const { clock, channel, lookup, settle } = setup();
    await expect(lookup.lookup()).rejects.toEqual(expect.objectContaining({ code: 'NOT_CONNECTED' }));
    channel.up();
    const silent = lookup.lookup();
    await settle();
    clock.advance(2_000);
    await expect(silent).rejects.toBeInstanceOf(AccountGroupLookupError);
    await expect(silent).rejects.toEqual(expect.objectContaining({ code: 'TIMEOUT' }));
    const refused = lookup.lookup();
    await settle();
    reply(channel, { success: false, accountGroups: [] });
    await expect(refused).rejects.toEqual(expect.objectContaining({ code: 'VENUE_REFUSED' }));
  });

  it('times out while the outbound limiter still holds the request, and never sends it late', async () => {
    const { clock, channel, settle } = setup();
    const metrics = new VenueMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
    // a socket budget already spent for the next second (e.g. a burst of re-subscribes after a reconnect)
    const limiter = new OutboundLimiter(
      { messagesPerWindow: 1, windowMs: 5_000, orderIntervalMs: 250 },
      clock,
      metrics,
    );
    await limiter.acquire('subscribe');
    const lookup = new AccountGroupLookup(channel, limiter, clock, 2_000);
    channel.up();
    const answer = lookup.lookup();
    let outcome: unknown;
    answer.then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error),
    );
    await settle();
    clock.advance(2_000);
    await settle();
    expect(outcome).toEqual(expect.objectContaining({ code: 'TIMEOUT' }));
    clock.advance(5_000);
    await settle();
    expect(channel.sentOfType('accountGroups')).toEqual([]);
  });
});
