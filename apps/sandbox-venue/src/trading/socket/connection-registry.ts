import type { VenueConnection } from './venue-connection.js';

/** Live connections by chanId and by session (one connection per session of an account, W19). */
export class ConnectionRegistry {
  private readonly byChanId = new Map<string, VenueConnection>();
  private readonly bySession = new Map<string, VenueConnection>();

  /** Registers the connection; returns the earlier holder of its session, which the caller must close. */
  add(connection: VenueConnection): VenueConnection | undefined {
    const earlier = this.bySession.get(connection.sessionKey);
    this.byChanId.set(connection.chanId, connection);
    this.bySession.set(connection.sessionKey, connection);
    return earlier;
  }

  remove(connection: VenueConnection): void {
    this.byChanId.delete(connection.chanId);
    if (this.bySession.get(connection.sessionKey) === connection) this.bySession.delete(connection.sessionKey);
  }

  byChan(chanId: string): VenueConnection | undefined {
    return this.byChanId.get(chanId);
  }

  holderOf(sessionKey: string): VenueConnection | undefined {
    return this.bySession.get(sessionKey);
  }

  all(): VenueConnection[] {
    return [...this.byChanId.values()];
  }

  /** Connections whose client-visible sessionId is `sessionId` (any account). */
  withSessionId(sessionId: string): VenueConnection[] {
    return this.all().filter((c) => c.session.sessionId === sessionId);
  }
}
