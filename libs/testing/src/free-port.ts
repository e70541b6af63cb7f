import { createServer } from 'node:net';

/**
 * Ports handed out, below Linux's ephemeral range (32768–60999): a port the kernel picks for `listen(0)` is an
 * ephemeral one, and while a test's app is down between two lives on it (a restart on the same port), any
 * outgoing connection on the machine may take it as its local port — the app's next start then fails
 * EADDRINUSE (seen in CI: account-sync restarted onto its webhook port).
 */
const FIRST = 20_000;
const LAST = 32_767;
const TRIES = 50;

/** A free TCP port on the loopback interface, outside the ephemeral range when one can be found there. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < TRIES; i += 1) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
    if ((await listenOn(port)) !== undefined) return port;
  }
  const any = await listenOn(0);
  if (any === undefined) throw new Error('could not find a free port');
  return any;
}

/** Binds `port` on 127.0.0.1 and lets it go: the port bound, or undefined when it is taken. */
function listenOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.on('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = address === null || typeof address === 'string' ? undefined : address.port;
      server.close(() => resolve(bound));
    });
  });
}
