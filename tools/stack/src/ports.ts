/** Whether a TCP port can be listened on (checked for every component before anything starts). */
import { createServer } from 'node:net';

/**
 * `free`; `in-use`; or `bad-host`: the host itself cannot be listened on (not an address of this machine, a name
 * that does not resolve) — then every port fails alike, and the setting to fix is the host, not the ports.
 */
export type PortCheck = 'free' | 'in-use' | 'bad-host';

const HOST_ERRORS = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EINVAL', 'EAFNOSUPPORT']);

export function checkPort(port: number, host: string): Promise<PortCheck> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(HOST_ERRORS.has(error.code ?? '') ? 'bad-host' : 'in-use'),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve('free')));
  });
}

export async function portIsFree(port: number, host: string): Promise<boolean> {
  return (await checkPort(port, host)) === 'free';
}
