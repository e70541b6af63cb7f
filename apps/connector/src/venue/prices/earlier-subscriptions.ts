/**
 * The venue subscriptions of this connector's earlier lives. On a venue that holds subscriptions across a
 * reconnect of the same sessionId (spec-gaps K2, dialect `held`), a restarted connector would find a dead
 * process's subscriptions still streaming, under tags it does not know and ids it never learnt — dropped,
 * but taking the connection's share of updates (4 a second, W13). So every subscription granted is remembered
 * by its tag (in NATS KV, NATS side), and forgotten once the venue confirmed its unsubscribe (or stopped it); at start the remembered ones
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
  private readonly tagOfId = new Map<string, string>();

  /** From now on, grants are remembered in `ledger`; `leftovers`: what it held at start. */
  use(ledger: SubscriptionLedger, leftovers: ReadonlyMap<string, string>): void {
    this.ledger = ledger;
    for (const [tag, subscriptionId] of leftovers) if (!this.isOurs(tag)) this.leftovers.set(tag, subscriptionId);
  }

  /** The venue granted `subscriptionId` under `tag` in this life. */
  granted(tag: string, subscriptionId: string): void {
    this.leftovers.delete(tag);
    this.tagOfId.set(subscriptionId, tag);
    this.ledger?.remember(tag, subscriptionId);
  }

  /** The tag the venue streams `subscriptionId` of this life under, when known. */
  tagOf(subscriptionId: string): string | undefined {
    return this.tagOfId.get(subscriptionId);
  }

  /** The unsubscribe of `subscriptionId` is over (the venue confirmed it, or it was given up on): forgotten. */
  released(subscriptionId: string): void {
    const tag = this.tagOfId.get(subscriptionId);
    if (tag === undefined) return;
    this.tagOfId.delete(subscriptionId);
    this.ledger?.forget(tag);
  }

  /** The venue stopped the subscription under `tag`. */
  stopped(tag: string): void {
    for (const [subscriptionId, ownTag] of this.tagOfId) if (ownTag === tag) this.tagOfId.delete(subscriptionId);
    this.ledger?.forget(tag);
  }

  /**
   * A price under a tag no stream of this life has: the id of an earlier life's subscription to end, once (kept
   * remembered until the venue confirms the unsubscribe: `released`).
   */
  leftoverStreaming(tag: string): string | undefined {
    const subscriptionId = this.leftovers.get(tag);
    if (subscriptionId === undefined) return undefined;
    this.leftovers.delete(tag);
    this.tagOfId.set(subscriptionId, tag);
    return subscriptionId;
  }

  /** This life's stream under `tag` is told the venue already holds it: the earlier life's id, now its own. */
  heldFromEarlier(tag: string): string | undefined {
    const subscriptionId = this.leftovers.get(tag);
    if (subscriptionId === undefined) return undefined;
    this.leftovers.delete(tag);
    this.tagOfId.set(subscriptionId, tag);
    return subscriptionId;
  }

  private isOurs(tag: string): boolean {
    for (const ownTag of this.tagOfId.values()) if (ownTag === tag) return true;
    return false;
  }
}
