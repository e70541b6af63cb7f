import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StartingHealth {
  /** The port it listens on (the one the app then takes over; chosen by the system when asked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The HTTP port while an app starts and waits for what it depends on (NATS): `/health` answers 503 saying
 * what it waits for, `/metrics` says `bus_connected 0` (so Prometheus raises "no NATS", not "app down", for an
 * app restarted during a NATS outage), everything else 503 — an operator or a probe is told the truth instead
 * of finding no port at all. Closed when the app's own HTTP server takes over the port.
 */
export async function serveStartingHealth(
  port: number,
  host: string,
  waitingFor: () => string,
  app: string,
): Promise<StartingHealth> {
  const metrics = [
    '# HELP bus_connected 1 while the NATS connection is up (0: starting, waiting for NATS)',
    '# TYPE bus_connected gauge',
    `bus_connected{app="${app.replace(/["\\\n]/g, '_')}"} 0`,
    '',
  ].join('\n');
  const server: Server = createServer((request, response) => {
    if (request.url === '/metrics') {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', connection: 'close' });
      response.end(metrics);
      return;
    }
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
