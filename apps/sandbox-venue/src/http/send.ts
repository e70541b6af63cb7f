import type { ServerResponse } from 'node:http';
import { writeJson, type WireValue } from './json.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: WireValue | undefined,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, { 'Content-Length': '0', ...headers });
    res.end();
    return;
  }
  const text = writeJson(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
