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

/**
 * Every port this process handed out: a port is picked now and bound later (a test picks the ports of two apps,
 * then starts them), so until then it reads free — a second pick of it would be bound by one app and refused to
 * the other (EADDRINUSE). Random picks among 12 768 ports do repeat: 30 picks, once in ~30 runs.
 */
const handedOut = new Set<number>();

/**
 * Jest workers run suites at once, each its own process: a port one picked and has not bound yet reads free to
 * the other. Each worker picks from its own lane (ports ≡ its JEST_WORKER_ID modulo LANES), never the other's.
 */
const LANES = 8;

function lane(): number {
  const worker = Number(process.env['JEST_WORKER_ID'] ?? '0');
  return Number.isInteger(worker) && worker >= 0 ? worker % LANES : 0;
}

/** A free TCP port on the loopback interface, outside the ephemeral range when one can be found there. */
export async function freePort(): Promise<number> {
  const offset = lane();
  for (let i = 0; i < TRIES; i += 1) {
    const port = FIRST + offset + LANES * Math.floor((Math.random() * (LAST - FIRST + 1 - offset)) / LANES);
    if (!handedOut.has(port) && (await listenOn(port)) !== undefined) return handOut(port);
  }
  for (let i = 0; i < TRIES; i += 1) {
    const any = await listenOn(0);
    if (any !== undefined && !handedOut.has(any)) return handOut(any);
  }
  throw new Error('could not find a free port');
}

function handOut(port: number): number {
  handedOut.add(port);
  return port;
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
