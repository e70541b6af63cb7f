/**
 * A fetch for requests that must never ride a pooled keep-alive connection: each request opens its own connection
 * (node:http/https, `agent: false`, `Connection: close`) and closes it after the answer.
 *
 * Why (t2 F3): Node's fetch reuses an idle pooled connection; when the server's idle timeout closes it just as the
 * client reuses it (client timers run late under CPU starvation), the request is lost before any answer ("other
 * side closed", ECONNRESET), and a POST is never retried. For a state-changing call that reads as "outcome unknown"
 * though the venue never saw it. A fresh connection has no idle time for a server to end.
 *
 * Like fetch: resolves to a `Response` (its body read whole before it resolves, so the timeout covers the body),
 * rejects with `signal.reason` when aborted, and with `TypeError('fetch failed', { cause })` when the connection
 * fails. Unlike fetch: follows no redirect, asks for no compression, takes a string body only, and marks a failure
 * before the TCP connection was made (`beforeConnect`: DNS, refused, unreachable), when nothing was sent.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export type FetchFunction = (url: string, init?: RequestInit) => Promise<Response>;

/** The rejection of a failed connection: fetch's shape, plus whether the connection was ever made. */
export class FreshConnectionFailure extends TypeError {
  readonly beforeConnect: boolean;
  constructor(cause: unknown, beforeConnect: boolean) {
    super('fetch failed', { cause });
    this.beforeConnect = beforeConnect;
  }
}

/** Statuses whose `Response` must have no body. */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

function bodyText(body: RequestInit['body']): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  throw new TypeError('only a string body is supported');
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '');
  return headers;
}

export const freshConnectionFetch: FetchFunction = (url, init = {}) => {
  const signal = init.signal ?? undefined;
  if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
  let target: URL;
  let body: string | undefined;
  try {
    target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new TypeError(`unsupported protocol ${target.protocol}`);
    }
    body = bodyText(init.body);
  } catch (error) {
    return Promise.reject(new FreshConnectionFailure(error, true)); // nothing left
  }
  const secure = target.protocol === 'https:';
  const headers = new Headers(init.headers);
  headers.set('connection', 'close');
  if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
  const send = secure ? httpsRequest : httpRequest;

  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    let connected = false;
    const request = send(target, { method: init.method ?? 'GET', headers: Object.fromEntries(headers), agent: false });
    const onAbort = () => fail(signal?.reason);
    function finish(): void {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
    }
    function fail(error: unknown): void {
      if (settled) return;
      finish();
      request.destroy();
      reject(error as Error);
    }
    const lost = (error: unknown) => fail(new FreshConnectionFailure(error, !connected));
    signal?.addEventListener('abort', onAbort, { once: true });
    // TCP connected counts as "may have sent", for https too (a failed TLS handshake is then outcome unknown).
    request.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    request.on('error', lost);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', lost);
      response.on('close', () => {
        if (!response.complete)
          lost(Object.assign(new Error('connection closed mid-response'), { code: 'ECONNRESET' }));
      });
      response.on('end', () => {
        if (settled) return;
        const status = response.statusCode ?? 0;
        let answer: Response;
        try {
          answer = new Response(NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks), {
            status,
            statusText: response.statusMessage ?? '',
            headers: headersOf(response),
          });
        } catch (error) {
          lost(error); // e.g. a status outside 200–599, which no Response can hold
          return;
        }
        finish();
        resolve(answer);
      });
    });
    request.end(body);
  });
};
