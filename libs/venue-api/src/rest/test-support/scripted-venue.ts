/**
 * A real HTTP server on 127.0.0.1 that answers each request from a per-test script, records what it
 * saw, and checks every `Rest-Sign` independently of the client's code (node:crypto, straight from §5.2:
 * HMAC-SHA512 over `<path without leading slash>\0<body text>`). For the REST client's unit tests.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface SeenRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Exact body text received. */
  bodyText: string;
  /** Whether `Rest-Sign` matches the body text under the server's secret and encoding. */
  signatureValid: boolean;
}

export interface ScriptedReply {
  status: number;
  /** Sent verbatim (so tests control number text); omitted → empty body. */
  body?: string;
  headers?: Record<string, string>;
}

/** `'hang'`: never answer (for timeouts). `'drop'`: close the connection without an answer (lost after it left). */
export type VenueScript = (
  request: SeenRequest,
  index: number,
) => ScriptedReply | 'hang' | 'drop' | Promise<ScriptedReply>;

export function independentSignature(path: string, bodyText: string, secret: string, encoding: 'base64' | 'hex') {
  const key = encoding === 'base64' ? Buffer.from(secret, 'base64') : Buffer.from(secret, 'utf8');
  const message = `${path.replace(/^\//, '')}\u0000${bodyText}`;
  return createHmac('sha512', key).update(message, 'utf8').digest(encoding);
}

export const json = (status: number, body: string, headers?: Record<string, string>): ScriptedReply =>
  headers === undefined ? { status, body } : { status, body, headers };

export class ScriptedVenue {
  readonly requests: SeenRequest[] = [];
  /** TCP connections accepted so far. */
  connections = 0;
  script: VenueScript = () => json(500, '{}');
  private server: Server | undefined;
  private port = 0;
  private readonly hanging: ServerResponse[] = [];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(
    private readonly secret: string,
    private readonly encoding: 'base64' | 'hex' = 'base64',
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port: number): Promise<void> {
    const server = createServer((request, response) => void this.handle(request, response));
    server.on('connection', () => {
      this.connections += 1;
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    for (const response of this.hanging) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Closes every kept-alive connection that has no request in progress, as an idle timeout does. */
  closeIdleConnections(): void {
    this.server?.closeIdleConnections();
  }

  /** Resolves once the server has seen `count` requests in total. */
  seen(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  reset(script: VenueScript): void {
    this.requests.length = 0;
    this.script = script;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const bodyText = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const sign = request.headers['rest-sign'];
    const seen: SeenRequest = {
      method: request.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      bodyText,
      signatureValid:
        typeof sign === 'string' && sign === independentSignature(url.pathname, bodyText, this.secret, this.encoding),
    };
    const index = this.requests.length;
    this.requests.push(seen);
    const ready = this.waiters.filter((waiter) => this.requests.length >= waiter.count);
    this.waiters = this.waiters.filter((waiter) => this.requests.length < waiter.count);
    for (const waiter of ready) waiter.resolve();
    const reply = await this.script(seen, index);
    if (reply === 'hang') {
      this.hanging.push(response);
      return;
    }
    if (reply === 'drop') {
      request.socket.destroy();
      return;
    }
    const body = reply.body ?? '';
    response.writeHead(reply.status, {
      ...(body === '' ? {} : { 'Content-Type': 'application/json' }),
      'Content-Length': String(Buffer.byteLength(body)),
      ...reply.headers,
    });
    response.end(body);
  }
}
