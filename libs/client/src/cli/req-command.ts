/**
 * `gw req <subject> [<json>]`: one request/reply on any subject, the reply printed as it came — what `nats req`
 * does, for machines without the NATS CLI (the docs' `nats req` examples run as `gw req`). `gw kv get <bucket>
 * <key>`: one KV entry (e.g. `GW_ACCOUNT_SYNC_LEASES` in the runbook), as `nats kv get` would show it.
 */
import { Kvm } from '@nats-io/kv';
import { transportError } from '../client-context.js';
import { ClientErrorCode, GatewayError } from '../gateway-error.js';
import type { GatewayClient } from '../gateway-client.js';
import { COMMON_FLAGS, usage, type ClientSource } from './options.js';
import type { Terminal } from './terminal.js';

export const REQ_HELP = `gw req <subject> [<json>]
  One request on any subject (default body {}); the reply printed as it came. Replaces \`nats req\`.
  e.g. gw req gw.v1.default.exec.order.list '{"filter":"unresolved"}'
gw kv get <bucket> <key>
  One JSON KV entry, e.g. gw kv get GW_ACCOUNT_SYNC_LEASES default. Replaces \`nats kv get\`.
  The bucket as its stream's name (\`gw streams --all\`: KV_GW_ACCOUNT_SYNC_LEASES) is taken too.`;

export const REQ_FLAGS = COMMON_FLAGS;

/** Tokens of printable characters without spaces or wildcards, none empty. */
const SUBJECT = /^[^\s*>.]+(\.[^\s*>.]+)*$/;
const BUCKET = /^[A-Za-z0-9_-]{1,255}$/;
/** JetStream keeps KV bucket `b` as the stream `KV_b`. */
const KV_STREAM_PREFIX = 'KV_';
const KV_KEY = /^[-/_=.A-Za-z0-9]{1,1024}$/;

/** Payloads above this are refused before sending (NATS's default max payload is 1 MiB). */
const MAX_BODY = 1_000_000;

export async function runReq(
  client: ClientSource,
  positionals: string[],
  output: { terminal: Terminal; timeoutMs: number },
): Promise<number> {
  const [subject, body = '{}', ...rest] = positionals;
  if (subject === undefined || !SUBJECT.test(subject))
    throw usage('req', 'gw req needs a subject: dot-separated tokens, no spaces or wildcards');
  if (rest.length > 0) throw usage('req', 'gw req takes one body: quote the JSON');
  if (body.length > MAX_BODY) throw usage('req', `the body is over ${MAX_BODY} bytes`);
  const connected = await client();
  const reply = await connected.context.nc
    .request(subject, body, { timeout: output.timeoutMs })
    .catch((error: unknown) => {
      const failure = transportError(error, subject, connected.context.subjects.account);
      // any subject: nobody answering may be a mistyped one, not a missing app
      throw failure.code === ClientErrorCode.NoResponder
        ? new GatewayError(
            failure.code,
            `nobody answers ${subject}`,
            'check the subject (docs/nats-contract.md, README "Subjects") and that the app serving it runs (`gw status`)',
          )
        : failure;
    });
  output.terminal.line(reply.string());
  return 0;
}

export async function runKv(
  client: ClientSource,
  positionals: string[],
  output: { terminal: Terminal },
): Promise<number> {
  const [action, named, key, ...rest] = positionals;
  if (action !== 'get' || named === undefined || key === undefined || rest.length > 0)
    throw usage('kv', 'gw kv get <bucket> <key>');
  const bucket = bucketName(named);
  if (!BUCKET.test(bucket)) throw usage('kv', 'a bucket name is letters, digits, _ or -');
  if (!KV_KEY.test(key)) throw usage('kv', 'a key is letters, digits and -/_=. (no spaces or wildcards)');
  const connected: GatewayClient = await client();
  const kv = await new Kvm(connected.context.nc).open(bucket);
  const entry = await kv.get(key).catch((error: unknown) => {
    if (/stream not found/i.test(error instanceof Error ? error.message : String(error)))
      throw new GatewayError(
        'NOT_FOUND',
        `no bucket ${bucket}`,
        'gw streams --all lists the buckets (stream KV_<bucket>; either name works here)',
      );
    throw error;
  });
  if (entry === null || entry.operation !== 'PUT')
    throw new GatewayError(
      'NOT_FOUND',
      `no entry ${key} in ${bucket}`,
      'check the bucket and key (gw streams --all lists the buckets as KV_<bucket>)',
    );
  output.terminal.line(
    JSON.stringify({
      bucket,
      key,
      revision: entry.revision,
      created: entry.created.toISOString(),
      value: entry.string(),
    }),
  );
  return 0;
}

/**
 * The bucket a name means: a KV bucket is stored as the stream `KV_<bucket>`, the name `gw streams --all` prints,
 * so that name is taken too (a bucket whose own name starts with `KV_` is not one the gateway makes).
 */
export function bucketName(named: string): string {
  return named.startsWith(KV_STREAM_PREFIX) && named.length > KV_STREAM_PREFIX.length
    ? named.slice(KV_STREAM_PREFIX.length)
    : named;
}
