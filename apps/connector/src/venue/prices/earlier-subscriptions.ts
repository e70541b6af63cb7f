/**
 * The venue subscriptions of this connector's earlier lives. On a venue that holds subscriptions across a
 * reconnect of the same sessionId (spec-gaps K2, dialect `held`), a restarted connector would find a dead
 * process's subscriptions still streaming, under tags it does not know and ids it never learnt — dropped,
 * but taking the connection's share of updates (4 a second, W13). So every subscription granted is remembered
 * by its tag (in NATS KV, NATS side), and forgotten when unsubscribed or stopped; at start the remembered ones
 * are the leftovers: one whose tag streams a price while no stream of this life has that tag is unsubscribed
 * (once), and one whose tag this life's stream is told is "already held" is adopted by it, id and all. A venue
 * that drops subscriptions never streams a leftover: nothing is sent for them.
 */

/** Where granted subscriptions are remembered across restarts (implemented on NATS KV by the NATS side). */
export interface SubscriptionLedger {
  remember(tag: string, subscriptionId: string): void;
  forget(tag: string): void;
}

export class EarlierSubscriptions {
  private ledger: SubscriptionLedger | undefined;
  /** Tag → subscription id, of earlier lives, not yet met in this one. */
  private readonly leftovers = new Map<string, string>();
  /** Subscription id → tag, granted (or adopted) in this life. */
  private readonly tagOf = new Map<string, string>();

  /** From now on, grants are remembered in `ledger`; `leftovers`: what it held at start. */
  use(ledger: SubscriptionLedger, leftovers: ReadonlyMap<string, string>): void {
    this.ledger = ledger;
    for (const [tag, subscriptionId] of leftovers) if (!this.isOurs(tag)) this.leftovers.set(tag, subscriptionId);
  }

  /** The venue granted `subscriptionId` under `tag` in this life. */
  granted(tag: string, subscriptionId: string): void {
    this.leftovers.delete(tag);
    this.tagOf.set(subscriptionId, tag);
    this.ledger?.remember(tag, subscriptionId);
  }

  /** This life unsubscribes `subscriptionId`. */
  released(subscriptionId: string): void {
    const tag = this.tagOf.get(subscriptionId);
    if (tag === undefined) return;
    this.tagOf.delete(subscriptionId);
    this.ledger?.forget(tag);
  }

  /** The venue stopped the subscription under `tag`. */
  stopped(tag: string): void {
    for (const [subscriptionId, ownTag] of this.tagOf) if (ownTag === tag) this.tagOf.delete(subscriptionId);
    this.ledger?.forget(tag);
  }

  /** A price under a tag no stream of this life has: the id of an earlier life's subscription to end, once. */
  leftoverStreaming(tag: string): string | undefined {
    const subscriptionId = this.leftovers.get(tag);
    if (subscriptionId === undefined) return undefined;
    this.leftovers.delete(tag);
    this.ledger?.forget(tag);
    return subscriptionId;
  }

  /** This life's stream under `tag` is told the venue already holds it: the earlier life's id, now its own. */
  heldFromEarlier(tag: string): string | undefined {
    const subscriptionId = this.leftovers.get(tag);
    if (subscriptionId === undefined) return undefined;
    this.leftovers.delete(tag);
    this.tagOf.set(subscriptionId, tag);
    return subscriptionId;
  }

  private isOurs(tag: string): boolean {
    for (const ownTag of this.tagOf.values()) if (ownTag === tag) return true;
    return false;
  }
}
