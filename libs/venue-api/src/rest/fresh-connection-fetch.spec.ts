import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '#testing';
import { freshConnectionFetch } from './fresh-connection-fetch.js';

let server: Server;
let base: string;
let connections = 0;
const seen: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', headers: request.headers, body });
      if (request.url === '/hang') return;
      if (request.url === '/empty') {
        response.writeHead(204).end();
        return;
      }
      if (request.url === '/half') {
        response.writeHead(200, { 'Content-Length': '100' });
        response.write('{"par', () => request.socket.destroy());
        return;
      }
      response.writeHead(201, { 'Retry-After': '3', 'Set-Cookie': ['a=1', 'b=2'] });
      response.end(`{"echo":${JSON.stringify(body)}}`);
    });
  });
  server.on('connection', () => (connections += 1));
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('freshConnectionFetch', () => {
  it('sends method, headers and body on a connection of its own, closed after the answer, as a Response', async () => {
    const before = connections;
    const init = { method: 'POST', headers: { 'Content-Type': 'application/json', 'Rest-Key': 'k' }, body: '{"a":1}' };
    const first = await freshConnectionFetch(`${base}/x`, init);
    const second = await freshConnectionFetch(`${base}/x`, init);
    expect(first).toBeInstanceOf(Response);
    expect(first.status).toBe(201);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(first.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await first.text()).toBe('{"echo":"{\\"a\\":1}"}');
    expect(await second.json()).toEqual({ echo: '{"a":1}' });
    expect(connections - before).toBe(2);
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      body: '{"a":1}',
      headers: { connection: 'close', 'content-type': 'application/json', 'rest-key': 'k', 'content-length': '7' },
    });
  });

  it('answers a 204 with an empty body', async () => {
    const response = await freshConnectionFetch(`${base}/empty`);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it("rejects with the signal's reason when it times out, like fetch", async () => {
    const error = await freshConnectionFetch(`${base}/hang`, { signal: AbortSignal.timeout(100) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ name: 'TimeoutError' });
  });

  it('a refused connection: fetch failed, cause ECONNREFUSED, before any connection', async () => {
    const error = await freshConnectionFetch(`http://127.0.0.1:${await freePort()}/x`).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ message: 'fetch failed', beforeConnect: true, cause: { code: 'ECONNREFUSED' } });
  });

  it('a connection closed mid-answer: fetch failed after the connection was made', async () => {
    const error = await freshConnectionFetch(`${base}/half`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ message: 'fetch failed', beforeConnect: false, cause: { code: 'ECONNRESET' } });
  });

  it('refuses a body it cannot send as text, sending nothing', async () => {
    const before = seen.length;
    const error = await freshConnectionFetch(`${base}/x`, { method: 'POST', body: new Uint8Array([1]) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ message: 'fetch failed', beforeConnect: true });
    expect(seen).toHaveLength(before);
  });
});
