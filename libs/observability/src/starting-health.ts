import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StartingHealth {
  /** The port it listens on (the one the app then takes over; chosen by the system when asked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The HTTP port while an app starts and waits for what it depends on (NATS): `/health` answers 503 saying
 * what it waits for, everything else 503, so an operator or a probe is told the truth instead of finding
 * no port at all. Closed when the app's own HTTP server takes over the port.
 */
export async function serveStartingHealth(
  port: number,
  host: string,
  waitingFor: () => string,
): Promise<StartingHealth> {
  const server: Server = createServer((request, response) => {
    const body =
      request.url === '/health'
        ? { status: 'starting', checks: { startup: { up: false, detail: waitingFor() } } }
        : { status: 'starting' };
    response.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
