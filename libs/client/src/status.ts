/**
 * The connector's status (`{prefix}.{account}.connector.status`, last value kept): read at once, then every
 * update, as an Observable. `undefined` means no status is stored — no connector has run for this account, or
 * its last status aged out (three missed intervals: it is not running).
 */
import { Observable } from 'rxjs';
import type { ConnectorStatus } from '#contracts';
import type { ClientContext } from './client-context.js';

export class StatusApi {
  constructor(private readonly context: ClientContext) {}

  /** The last stored status, or undefined. */
  async connector(): Promise<ConnectorStatus | undefined> {
    const subject = this.context.subjects.connectorStatus;
    const stream = await this.context.jsm.streams.find(subject).catch(() => undefined);
    if (stream === undefined) return undefined;
    const stored = await this.context.jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
    return stored === null ? undefined : stored.json<ConnectorStatus>();
  }

  /** The stored status first (or `undefined`), then every one the connector publishes. */
  connector$(): Observable<ConnectorStatus | undefined> {
    return new Observable((subscriber) => {
      let live = false;
      const sub = this.context.nc.subscribe(this.context.subjects.connectorStatus, {
        callback: (error, msg) => {
          if (error !== null) return;
          try {
            live = true;
            subscriber.next(msg.json<ConnectorStatus>());
          } catch {
            // not JSON: not a status of this contract
          }
        },
      });
      this.connector().then(
        (status) => {
          if (!live) subscriber.next(status);
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => sub.unsubscribe();
    });
  }
}
