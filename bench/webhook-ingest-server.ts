/**
 * A webhook endpoint for the ingest benchmark, in its own process: `receiver` is the account-sync app's
 * receiver and transaction ledger (each notification stored on JetStream before its 200), `bare` a plain
 * Node HTTP server that reads the body and answers 200. Sends `{port}` to the parent once listening.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccountLedgerName, accountLedgerStreams, BusConnection, BusMetrics, BusStreams, SubjectLedger } from '#bus';
import { TransactionSubjects } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { TransactionLedger } from '../apps/account-sync/src/transactions/transaction-ledger.js';
import { TransactionMetrics } from '../apps/account-sync/src/transactions/transaction-metrics.js';
import { CidrSet } from '../apps/account-sync/src/webhooks/cidr-set.js';
import { WebhookMetrics } from '../apps/account-sync/src/webhooks/webhook-metrics.js';
import { WebhookReceiver } from '../apps/account-sync/src/webhooks/webhook-receiver.js';

const [mode, natsUrl] = process.argv.slice(2);
const quiet = new JsonLogger('bench', 'webhook', 'error', { write: () => undefined });

async function receiver(): Promise<number> {
  const registry = new MetricsRegistry('bench', { defaultMetrics: false });
  const connection = await BusConnection.open(
    { servers: natsUrl ?? '', name: 'bench-webhooks' },
    new BusMetrics(registry),
    new HealthRegistry(),
    quiet,
  );
  const streams = new BusStreams(connection, quiet);
  for (const definition of accountLedgerStreams('gw.v1', 'bench', { duplicateWindowMs: 120_000, retentionMs: 0 })) {
    await streams.ensureStream(definition);
  }
  const ledger = new TransactionLedger(
    new SubjectLedger(connection, AccountLedgerName.transactions('bench')),
    new TransactionSubjects('gw.v1', 'bench'),
    new TransactionMetrics(registry),
    quiet,
  );
  const allowed = CidrSet.parse(['127.0.0.1/32']).set;
  const webhook = new WebhookReceiver(
    {
      port: 0,
      host: '127.0.0.1',
      path: '/webhooks/venue',
      maxBodyBytes: 65_536,
      trustedProxies: CidrSet.empty(),
      answerDeadlineMs: 8_000,
    },
    { admit: (address) => (allowed.contains(address) ? 'allowed' : 'refused') },
    ledger,
    new WebhookMetrics(registry),
    quiet,
  );
  const url = await webhook.start();
  return Number(new URL(url).port);
}

async function bare(): Promise<number> {
  const server = createServer((request, response) => {
    request.on('data', () => undefined);
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const port = await (mode === 'receiver' ? receiver() : bare());
process.send?.({ port });
