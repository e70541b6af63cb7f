import type { IncomingMessage } from 'node:http';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the request body as the exact text sent: the signature covers it byte for byte (§5.2), and money
 * is judged on its JSON text. Nothing else may consume the stream first (the app runs with bodyParser off).
 */
export function readRawBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
