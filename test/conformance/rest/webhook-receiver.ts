/** A real local HTTP receiver for webhook tests: records every delivery and answers as scripted. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  body: string;
  json: Record<string, unknown>;
  contentType: string | undefined;
  method: string | undefined;
  /** performance.now() when the body had arrived. */
  receivedAt: number;
}

/** What the receiver does with a delivery: answer a status, or never answer (timeout). */
export type Answer = number | 'hang';

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private script: Answer[] = [];
  private rule: ((d: Delivery, seen: number) => Answer | undefined) | undefined;
  private waiters: (() => void)[] = [];
  private server: Server | undefined;
  private readonly hanging = new Set<IncomingMessage>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const delivery: Delivery = {
          body,
          json: JSON.parse(body) as Record<string, unknown>,
          contentType: req.headers['content-type'],
          method: req.method,
          receivedAt: performance.now(),
        };
        this.deliveries.push(delivery);
        const seen = this.deliveries.filter((d) => d.json['uuid'] === delivery.json['uuid']).length;
        const answer = this.rule?.(delivery, seen) ?? this.script.shift() ?? 200;
        for (const w of this.waiters.splice(0)) w();
        if (answer === 'hang') {
          this.hanging.add(req);
          return;
        }
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** The next deliveries get these answers, in order; afterwards 200. */
  answer(...answers: Answer[]): void {
    this.script.push(...answers);
  }

  /** Answers by content: `seen` counts deliveries of the same transaction uuid, this one included. */
  answerWith(rule: (d: Delivery, seen: number) => Answer | undefined): void {
    this.rule = rule;
  }

  /** Resolves once `count` deliveries have arrived in total (deadline, never a fixed sleep). */
  async waitFor(count: number, timeoutMs = 5000): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} deliveries, got ${this.deliveries.length}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.deliveries;
  }

  reset(): void {
    this.deliveries.length = 0;
    this.script = [];
    this.rule = undefined;
  }

  async close(): Promise<void> {
    for (const req of this.hanging) req.socket.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
