/**
 * Test-only WebSocket client written from the spec (§4.2): fetches a single-use token over signed REST
 * (§4.3, spec-gaps W1) and connects with the `ws` package. Every frame received is kept with its exact
 * text so money is read from strings. Waits are event-driven with a deadline; nothing sleeps.
 */
import WebSocket from 'ws';
import { SpecClient, type SpecCredentials } from '../spec-client.js';

export const TOKEN_PATH = '/api/3/svc/rest/auth/token';

export interface Received {
  text: string;
  /** JSON.parse of the frame, for non-money assertions. */
  json: Record<string, unknown>;
  seq: number;
}

export type FramePredicate = (frame: Record<string, unknown>) => boolean;

export async function fetchToken(restBaseUrl: string, credentials: SpecCredentials): Promise<string> {
  const res = await new SpecClient(restBaseUrl, credentials).post(TOKEN_PATH);
  const body = res.json as { token?: unknown } | undefined;
  if (res.status !== 200 || typeof body?.token !== 'string') {
    throw new Error(`token endpoint answered ${res.status}: ${res.text}`);
  }
  return body.token;
}

export interface ConnectOptions {
  /** Query text for sessionId exactly as it goes on the URL (already percent-encoded); omitted if undefined. */
  rawSessionId?: string;
  /** A token to use instead of fetching one. */
  token?: string;
}

export class ConnectRefused extends Error {
  constructor(readonly status: number) {
    super(`upgrade refused with HTTP ${status}`);
  }
}

/** A pending `take`: tested against each new frame only, so waiting costs O(1) per frame, not a rescan. */
interface Waiter {
  predicate: FramePredicate;
  settle(frame: Received | undefined): void;
}

export class WsTestClient {
  readonly frames: Received[] = [];
  private readonly taken = new Set<number>();
  private readonly waiters: Waiter[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const text = data.toString();
      const frame: Received = { text, json: JSON.parse(text) as Record<string, unknown>, seq: this.frames.length };
      this.frames.push(frame);
      const index = this.waiters.findIndex((w) => w.predicate(frame.json));
      if (index >= 0) {
        const [waiter] = this.waiters.splice(index, 1);
        this.taken.add(frame.seq);
        waiter?.settle(frame);
      }
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const waiter of this.waiters.splice(0)) waiter.settle(undefined);
      });
    });
  }

  static async connect(wsUrl: string, options: ConnectOptions & { restBaseUrl: string; credentials: SpecCredentials }) {
    const token = options.token ?? (await fetchToken(options.restBaseUrl, options.credentials));
    let url = `${wsUrl}?token=${encodeURIComponent(token)}`;
    if (options.rawSessionId !== undefined) url += `&sessionId=${options.rawSessionId}`;
    return WsTestClient.open(url);
  }

  /** Connects to an exact URL; rejects with ConnectRefused when the upgrade gets a non-101 answer. */
  static open(url: string): Promise<WsTestClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      // Listen before the handshake completes so no early frame (redelivery, error) is missed.
      const client = new WsTestClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_req, res) => {
        reject(new ConnectRefused(res.statusCode ?? 0));
        socket.terminate();
      });
      socket.once('error', (error) => reject(error));
    });
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  sendRaw(text: string): void {
    this.socket.send(text);
  }

  /**
   * The first frame not yet taken that matches; waits up to `timeoutMs` (a deadline for a machine under
   * load, not a duration being asserted).
   */
  async take(predicate: FramePredicate, timeoutMs = 10_000, what = 'frame'): Promise<Received> {
    const found = this.frames.find((f) => !this.taken.has(f.seq) && predicate(f.json));
    if (found !== undefined) {
      this.taken.add(found.seq);
      return found;
    }
    const fail = (): Error => {
      const recent = this.frames.slice(-15).map((f) => f.text);
      return new Error(`no ${what} within ${timeoutMs} ms; last frames received:\n${recent.join('\n')}`);
    };
    if (this.socket.readyState === WebSocket.CLOSED) throw fail();
    const frame = await new Promise<Received | undefined>((resolve) => {
      const waiter: Waiter = {
        predicate,
        settle: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
    if (frame === undefined) throw fail();
    return frame;
  }

  /** Takes `count` matching frames in arrival order. */
  async takeMany(predicate: FramePredicate, count: number, timeoutMs = 10_000): Promise<Received[]> {
    const out: Received[] = [];
    for (let i = 0; i < count; i += 1) out.push(await this.take(predicate, timeoutMs, `frame ${i + 1} of ${count}`));
    return out;
  }

  /** Frames received so far (taken or not) that match. */
  seen(predicate: FramePredicate): Received[] {
    return this.frames.filter((f) => predicate(f.json));
  }

  /**
   * A barrier: asks for account groups and waits for the reply. The venue handles a connection's messages
   * in order, so anything it would have answered to earlier messages has arrived by then.
   */
  async barrier(): Promise<Received> {
    const requestId = `barrier-${Math.random().toString(36).slice(2)}`;
    this.send({ messageType: 'accountGroups', requestId });
    return this.take((f) => f['messageType'] === 'accountGroups' && f['requestId'] === requestId);
  }

  close(): Promise<{ code: number; reason: string }> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.close();
    return this.closed;
  }
}

export const isType =
  (messageType: string, extra: Record<string, unknown> = {}): FramePredicate =>
  (frame) =>
    frame['messageType'] === messageType && Object.entries(extra).every(([k, v]) => frame[k] === v);

/** Reads a string field from the raw frame text (money assertions stay on strings). */
export function stringField(frame: Received, path: string[]): string {
  let value: unknown = frame.json;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  if (typeof value !== 'string') throw new Error(`${path.join('.')} is not a string in ${frame.text}`);
  return value;
}
