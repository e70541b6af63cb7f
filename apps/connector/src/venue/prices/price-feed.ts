import { Observable, type Subscriber } from 'rxjs';
import type { PriceMessage } from '#contracts';

export type PriceListener = (price: PriceMessage) => void;

/**
 * The registry's prices: an Observable for anyone who subscribes (tests, the status side), and a plain
 * listener list for the hot path. `listen` calls a function per price and nothing else; an RxJS Subject's
 * `next` runs its error context, copies its observer array and passes each value through a
 * SafeSubscriber and a ConsumerObserver before the callback (measured in bench/hot-path.ts). A listener
 * that throws is reported to `onListenerError` and does not keep the price from the other listeners.
 */
export class PriceFeed extends Observable<PriceMessage> {
  /** Replaced, never changed in place: `emit` iterates the array it started with. */
  private listeners: readonly PriceListener[] = [];
  private readonly subscribers = new Set<Subscriber<PriceMessage>>();
  private ended = false;

  constructor(private readonly onListenerError: (error: unknown) => void) {
    super((subscriber) => {
      if (this.ended) {
        subscriber.complete();
        return undefined;
      }
      this.subscribers.add(subscriber);
      const stop = this.listen((price) => subscriber.next(price));
      return () => {
        stop();
        this.subscribers.delete(subscriber);
      };
    });
  }

  /** Calls `listener` with every price from now on, until the returned function is called. */
  listen(listener: PriceListener): () => void {
    if (this.ended) return () => undefined;
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(price: PriceMessage): void {
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        (listeners[i] as PriceListener)(price);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** No prices any more: subscribers complete, listeners are dropped. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.listeners = [];
    for (const subscriber of [...this.subscribers]) subscriber.complete();
    this.subscribers.clear();
  }
}
