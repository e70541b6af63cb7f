/**
 * Test-only REST client written from the spec (§4.1, §5), independent of `libs/venue-api`'s client: the
 * conformance suites drive the sandbox through it over real HTTP, so a misreading on either side shows.
 */
import { createHmac } from 'node:crypto';

export type Encoding = 'base64' | 'hex';

export interface SpecCredentials {
  apiKey: string;
  apiSecret: string;
}

export interface SpecResponse {
  status: number;
  headers: Headers;
  /** Exact response text (money is read from it, never through a JS number). */
  text: string;
  /** Parsed with JSON.parse; only for non-money assertions. undefined when the body is empty. */
  json: unknown;
}

/** §5.2: HMAC-SHA512 over `<path without leading slash>` NUL `<body>`; encoding per §5.3. */
export function specSign(encoding: Encoding, secret: string, path: string, body: string): string {
  const key = encoding === 'base64' ? Buffer.from(secret, 'base64') : Buffer.from(secret, 'utf8');
  return createHmac('sha512', key)
    .update(Buffer.concat([Buffer.from(path.replace(/^\//, '')), Buffer.from([0]), Buffer.from(body)]))
    .digest(encoding === 'base64' ? 'base64' : 'hex');
}

let lastNonce = BigInt(Date.now()) * 1000n;

/** A strictly increasing nonce shared by every client in the test process (§4.1). */
export function nextNonce(): bigint {
  const now = BigInt(Date.now()) * 1000n;
  lastNonce = now > lastNonce ? now : lastNonce + 1n;
  return lastNonce;
}

/** Unix microseconds, optionally shifted (tonce window tests). */
export function tonceNow(offsetMs = 0): bigint {
  return (BigInt(Date.now()) + BigInt(offsetMs)) * 1000n;
}

export interface SendOptions {
  /** Body text exactly as sent; default: `{"nonce":<next>, ...fields}`. */
  rawBody?: string;
  method?: string;
  query?: string;
  headers?: Record<string, string>;
  /** Sign this path instead of the one requested (signature tests). */
  signedPath?: string;
  /** Sign this text instead of the body sent. */
  signedBody?: string;
  omitKey?: boolean;
  omitSign?: boolean;
  encoding?: Encoding;
  credentials?: SpecCredentials;
}

/**
 * Builds a body: `fields` values are written as JSON, except strings wrapped by `raw()` which are written
 * verbatim (JSON numbers such as `100.50` keep their text).
 */
export class RawJson {
  constructor(readonly text: string) {}
}
export const raw = (text: string): RawJson => new RawJson(text);

export function bodyText(fields: Record<string, unknown>, anti: 'nonce' | 'tonce' | 'none' = 'nonce'): string {
  const parts: string[] = [];
  if (anti === 'nonce') parts.push(`"nonce":${nextNonce()}`);
  if (anti === 'tonce') parts.push(`"tonce":${tonceNow()}`);
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${v instanceof RawJson ? v.text : JSON.stringify(v)}`);
  }
  return `{${parts.join(',')}}`;
}

export class SpecClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials: SpecCredentials,
    readonly encoding: Encoding = 'base64',
  ) {}

  withCredentials(credentials: SpecCredentials): SpecClient {
    return new SpecClient(this.baseUrl, credentials, this.encoding);
  }

  /** Signed POST with a fresh nonce and these fields. */
  post(path: string, fields: Record<string, unknown> = {}, options: SendOptions = {}): Promise<SpecResponse> {
    return this.send(path, { rawBody: bodyText(fields), ...options });
  }

  async send(path: string, options: SendOptions = {}): Promise<SpecResponse> {
    const body = options.rawBody ?? bodyText({});
    const creds = options.credentials ?? this.credentials;
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...options.headers };
    if (!options.omitKey) headers['Rest-Key'] = creds.apiKey;
    if (!options.omitSign) {
      headers['Rest-Sign'] = specSign(
        options.encoding ?? this.encoding,
        creds.apiSecret,
        options.signedPath ?? path,
        options.signedBody ?? body,
      );
    }
    const method = options.method ?? 'POST';
    const url = `${this.baseUrl}${path}${options.query === undefined ? '' : `?${options.query}`}`;
    const res = await fetch(url, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : body,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text === '' ? undefined : JSON.parse(text) };
  }
}

/** Reads `"<field>":<number>` occurrences from raw JSON text, in order (money assertions without JS numbers). */
export function numberTexts(text: string, field: string): string[] {
  const re = new RegExp(`"${field}":(-?[0-9][0-9.eE+-]*)`, 'g');
  return [...text.matchAll(re)].map((m) => m[1] ?? '');
}

/** Plain JSON POST to the operator API. */
export async function admin(adminUrl: string, path: string, body: unknown = {}): Promise<SpecResponse> {
  const res = await fetch(`${adminUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text === '' ? undefined : JSON.parse(text) };
}
