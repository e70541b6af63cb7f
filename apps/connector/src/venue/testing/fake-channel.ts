import { Subject } from 'rxjs';
import { type ClientMessage, encodeClientMessage, type ServiceMessage } from '#venue-api';
import type { FrameListener } from '../frames/service-frame.js';
import type { VenueChannel } from '../session/venue-channel.js';
import type { ConnectionEvent } from '../session/venue-session.js';

/** An in-memory venue connection for unit tests: records what was sent, delivers crafted frames. */
export class FakeChannel implements VenueChannel {
  readonly sent: ClientMessage[] = [];
  private readonly listeners: FrameListener[] = [];
  private readonly connections = new Subject<ConnectionEvent>();
  private generation = 0;
  openConnection: number | undefined;
  readonly connection$ = this.connections.asObservable();

  get isOpen(): boolean {
    return this.openConnection !== undefined;
  }

  up(): void {
    this.generation += 1;
    this.openConnection = this.generation;
    this.connections.next({ up: true, generation: this.generation });
  }

  down(): void {
    this.openConnection = undefined;
    this.connections.next({ up: false, reason: 'closed' });
  }

  /** Like the session: the frame is written by the venue-api codec, whose checks throw before anything leaves. */
  send(message: ClientMessage): boolean {
    if (!this.isOpen) return false;
    encodeClientMessage(message);
    this.sent.push(message);
    return true;
  }

  addFrameListener(listener: FrameListener): void {
    this.listeners.push(listener);
  }

  deliver(message: ServiceMessage): void {
    const arrivedAt = performance.now();
    for (const listener of this.listeners) listener(message, arrivedAt);
  }

  sentOfType<T extends ClientMessage['messageType']>(type: T): Extract<ClientMessage, { messageType: T }>[] {
    return this.sent.filter((m): m is Extract<ClientMessage, { messageType: T }> => m.messageType === type);
  }
}
