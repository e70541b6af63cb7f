import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP relay in front of a local server (a nats-server): clients connect to the relay, and `cut()` drops
 * every connection through it and refuses new ones until `mend()` — one client's network outage, at a moment
 * the test chooses, while the server runs on for everyone connected directly.
 */
export interface TcpRelay {
  readonly port: number;
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  cut(): void;
  mend(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(targetPort: number): Promise<TcpRelay> {
  let cut = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    url: `nats://127.0.0.1:${port}`,
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    mend() {
      cut = false;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
