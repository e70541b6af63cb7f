/**
 * The webhook receiver (§4.12, §6.1): the HTTP endpoint registered in the venue's portal, on its own port
 * (so /metrics and /health are not exposed there). For each POST on the configured path:
 *
 *   sender not in ips.json                 → 403 (counted; never stored) once a refresh of the list still
 *                                            excludes it; 503 while that refresh runs or ips.json announces a
 *                                            change (the venue may have moved first): see `admitSource`
 *   no ips.json list loaded yet            → 503 (the venue retries; a transient fault is never a 4xx)
 *   body over the size bound               → 413
 *   not JSON, or no usable `uuid`          → 400 (counted, a bounded reason): nothing a retry could mend
 *   a uuid, but not a leg the ledger can   → 503 (counted `unusable`, logged): the venue keeps it and retries
 *     store (state outside §3.3, no amount…)   (§6.1 rule 5) — a 4xx would lose a transaction that exists
 *   stored / duplicate / stale             → 200, only once the ledger has it durably
 *   the ledger cannot store it             → 503 (the venue retries with backoff)
 *   not stored within the answer deadline  → 503 (the venue retries with backoff; a timeout of its 10 s would be
 *                                            retried only 3 times, §6.1); the store goes on in the background —
 *                                            a retry queues behind it and finds the (uuid, state) held: duplicate
 *
 * Plain `node:http`: one handler, no framework on the hot path.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogThrottle, type JsonLogger } from '#observability';
import { readTransactionNotification } from '#venue-api';
import type { TransactionIntake } from '../transactions/transaction-intake.js';
import type { CidrSet } from './cidr-set.js';
import type { SourceVerdict } from './source-list-machine.js';
import { clientAddress } from './client-address.js';
import type { WebhookMetrics, WebhookResult } from './webhook-metrics.js';

export interface WebhookReceiverOptions {
  port: number;
  host: string;
  path: string;
  maxBodyBytes: number;
  trustedProxies: CidrSet;
  /** From a request's arrival; below the venue's 10 s response limit (§6.1, §8). */
  answerDeadlineMs: number;
}

export interface WebhookSources {
  admit(address: string): SourceVerdict;
}

const MAX_REASON = 200;
/** At stop, how long open connections are answered 503 `connection: close` before the idle ones are closed. */
const STOP_GRACE_MS = 500;
const JSON_HEADERS = { 'content-type': 'application/json' };

export class WebhookReceiver {
  private server: Server | undefined;
  private stopping = false;
  /** Refusals are logged at most once a second per kind (a flood of forged requests must not flood the log). */
  private readonly refusalLogs = new LogThrottle();

  constructor(
    private readonly options: WebhookReceiverOptions,
    private readonly sources: WebhookSources,
    private readonly intake: TransactionIntake,
    private readonly metrics: WebhookMetrics,
    private readonly logger: JsonLogger,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Listens; resolves with the URL of the endpoint. */
  async start(): Promise<string> {
    const server = createServer({ requestTimeout: 15_000, headersTimeout: 10_000 }, (request, response) =>
      this.handle(request, response),
    );
    server.keepAliveTimeout = 30_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const url = this.url;
    this.logger.info('webhook receiver listening', { url });
    return url;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    const host = this.options.host === '0.0.0.0' || this.options.host === '::' ? '127.0.0.1' : this.options.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address?.port ?? this.options.port}${this.options.path}`;
  }

  /**
   * Stops taking requests; those in hand finish (each is stored or answered 503). Open keep-alive connections
   * first get a short grace in which every request is answered 503 with `connection: close`, so their senders
   * close them: one closed under a request a sender just wrote would reset it unanswered (outside tester: 10 of
   * 300 in a flood).
   */
  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined || this.stopping) return;
    this.stopping = true;
    const open = await new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count ?? 0)));
    if (open > 0) await new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS));
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const started = this.now();
    const path = (request.url ?? '').split('?', 1)[0];
    if (path !== this.options.path) return this.answer(request, response, 404, 'not_found', 'not found');
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      return this.answer(request, response, 405, 'wrong_method', 'POST only');
    }
    if (this.stopping) {
      response.setHeader('connection', 'close');
      return this.answer(request, response, 503, 'unready', 'shutting down');
    }
    const peer = request.socket.remoteAddress ?? '';
    const source = clientAddress(peer, request.headers['x-forwarded-for'], this.options.trustedProxies);
    const verdict = this.sources.admit(source);
    if (verdict === 'unready') {
      response.setHeader('retry-after', '5');
      return this.answer(request, response, 503, 'unready', 'webhook source list not loaded yet');
    }
    if (verdict === 'retry') {
      this.logRefusal('unconfirmed_source', 'webhook answered 503: source not in ips.json, list being refreshed', {
        source: source.slice(0, 64),
      });
      return this.answer(request, response, 503, 'unconfirmed_source', 'source address not confirmed yet; retry later');
    }
    if (verdict === 'refused') {
      this.logRefusal('refused_source', 'webhook refused: source address not in ips.json', {
        source: source.slice(0, 64),
      });
      return this.answer(request, response, 403, 'refused_source', 'source address not allowed');
    }
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > this.options.maxBodyBytes) {
      return this.answer(request, response, 413, 'invalid', `body larger than ${this.options.maxBodyBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > this.options.maxBodyBytes) {
        tooLarge = true;
        chunks.length = 0;
        this.answer(request, response, 413, 'invalid', `body larger than ${this.options.maxBodyBytes} bytes`);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (tooLarge) return;
      const body =
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
      this.accept(request, response, body, started);
    });
    request.on('error', () => {
      if (!response.headersSent) response.destroy();
    });
  }

  private accept(request: IncomingMessage, response: ServerResponse, body: string, started: number): void {
    const reading = readTransactionNotification(body);
    if (!reading.ok) {
      const reason = reading.problem.slice(0, MAX_REASON);
      if (reading.uuid === undefined) {
        this.logRefusal('invalid', 'webhook refused: malformed notification', { reason, bytes: body.length });
        return this.answer(request, response, 400, 'invalid', `malformed notification: ${reason}`);
      }
      this.logRefusal('unusable', 'webhook not stored: a transaction the ledger cannot hold; answered 503', {
        uuid: reading.uuid.slice(0, 64),
        reason,
      });
      return this.answer(request, response, 503, 'unusable', `notification not usable yet: ${reason}`);
    }
    const record = reading.record;
    let late = false;
    const deadline = setTimeout(
      () => {
        late = true;
        this.logRefusal('store_deadline', 'webhook not stored within the answer deadline; answered 503, storing on', {
          uuid: record.uuid.slice(0, 64),
        });
        this.answer(request, response, 503, 'store_deadline', 'not stored within the answer deadline; retry later');
      },
      Math.max(0, this.options.answerDeadlineMs - (this.now() - started)),
    );
    this.intake.ingest(record, 'webhook').then(
      (result) => {
        clearTimeout(deadline);
        if (late)
          return this.logger.info('webhook stored after its 503', {
            uuid: record.uuid.slice(0, 64),
            result: result.kind,
          });
        this.metrics.storeSeconds.observe((this.now() - started) / 1_000);
        // (disputed and corrected are the list's: a webhook is stored, a duplicate or stale)
        this.answer(
          request,
          response,
          200,
          result.kind === 'disputed' || result.kind === 'corrected' ? 'stale' : result.kind,
        );
      },
      (error: unknown) => {
        clearTimeout(deadline);
        this.logger.error('webhook not stored; answered 503 so the venue retries', {
          uuid: record.uuid.slice(0, 64),
          error: error instanceof Error ? error.message : String(error),
        });
        if (!late) this.answer(request, response, 503, 'store_failed', 'not stored; retry later');
      },
    );
  }

  private logRefusal(kind: string, message: string, fields: Record<string, unknown>): void {
    const passed = this.refusalLogs.pass(kind, fields);
    if (passed !== undefined) this.logger.warn(message, passed);
  }

  private answer(
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    result: WebhookResult,
    reason?: string,
  ): void {
    this.metrics.requests.inc({ result });
    if (response.headersSent) return;
    if (status >= 400 && !request.complete) {
      // The body is not read: close the connection after this answer rather than read it.
      response.setHeader('connection', 'close');
    }
    if (status === 200) {
      response.writeHead(200, JSON_HEADERS).end(`{"result":"${result}"}`);
      return;
    }
    response.writeHead(status, JSON_HEADERS).end(JSON.stringify({ error: reason ?? result }));
  }
}
