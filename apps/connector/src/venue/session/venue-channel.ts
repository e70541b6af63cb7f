import type { Observable } from 'rxjs';
import type { ClientMessage } from '#venue-api';
import type { FrameListener } from '../frames/service-frame.js';
import type { ConnectionEvent } from './venue-session.js';

/** What the price, order and account-group actors need from the session (a fake in unit tests). */
export interface VenueChannel {
  readonly isOpen: boolean;
  /** Generation of the open connection, undefined when none is open. */
  readonly openConnection: number | undefined;
  readonly connection$: Observable<ConnectionEvent>;
  send(message: ClientMessage): boolean;
  addFrameListener(listener: FrameListener): void;
}
