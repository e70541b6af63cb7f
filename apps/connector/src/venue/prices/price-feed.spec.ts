import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, toArray } from 'rxjs';
import type { PriceMessage } from '#contracts';
import { PriceFeed } from './price-feed.js';

const price = (quoteId: string): PriceMessage => ({
  v: 1,
  status: 'live',
  accountGroup: 'g',
  instrument: 'BTC.USD',
  tenor: 'T',
  currency: 'BTC',
  quantity: '1',
  quoteId,
});

describe('PriceFeed', () => {
  it('calls each listener with every price in order until it stops listening', () => {
    const feed = new PriceFeed(() => undefined);
    const seen: string[] = [];
    const stop = feed.listen((p) => seen.push(`a:${p.quoteId ?? ''}`));
    feed.listen((p) => seen.push(`b:${p.quoteId ?? ''}`));
    feed.emit(price('1'));
    stop();
    feed.emit(price('2'));
    expect(seen).toEqual(['a:1', 'b:1', 'b:2']);
  });

  it('is an Observable: subscribers get the prices and complete when the feed ends', async () => {
    const feed = new PriceFeed(() => undefined);
    const all = firstValueFrom(feed.pipe(toArray()));
    feed.emit(price('1'));
    feed.emit(price('2'));
    feed.end();
    expect((await all).map((p) => p.quoteId)).toEqual(['1', '2']);
    let completed = false;
    feed.subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
  });

  it('an unsubscribed subscriber gets nothing more', () => {
    const feed = new PriceFeed(() => undefined);
    const seen: PriceMessage[] = [];
    const subscription = feed.subscribe((p) => seen.push(p));
    feed.emit(price('1'));
    subscription.unsubscribe();
    feed.emit(price('2'));
    expect(seen.map((p) => p.quoteId)).toEqual(['1']);
  });

  it('reports a throwing listener; the others still get the price', () => {
    const errors: unknown[] = [];
    const feed = new PriceFeed((error) => errors.push(error));
    const seen: PriceMessage[] = [];
    feed.listen(() => {
      throw new Error('listener broke');
    });
    feed.listen((p) => seen.push(p));
    feed.emit(price('1'));
    expect(seen).toHaveLength(1);
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it('a listener removed while a price is being handed out still gets that price, not the next', () => {
    const feed = new PriceFeed(() => undefined);
    const seen: string[] = [];
    let stopB: () => void = () => undefined;
    feed.listen(() => stopB());
    stopB = feed.listen((p) => seen.push(p.quoteId ?? ''));
    feed.emit(price('1'));
    feed.emit(price('2'));
    expect(seen).toEqual(['1']);
  });
});
