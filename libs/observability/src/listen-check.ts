/**
 * Every address an app will listen on, tried before anything starts (runApp): a port another process holds or a
 * host that is not an address of this machine is a setting to fix, named like any bad setting — found only at
 * its `listen`, account-sync had already taken its account lease and started its parts (outside tester).
 */
import { createServer } from 'node:net';

/** One address an app listens on, and the settings that chose it. */
export interface ListenSetting {
  port: number;
  host: string;
  portVariable: string;
  hostVariable: string;
}

/** Errors of the host itself (every port fails alike): not an address here, a name that does not resolve. */
const HOST_ERRORS = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EINVAL', 'EAFNOSUPPORT']);

/** Why `setting` cannot be listened on, naming its variables (never a secret: a port and a host), or undefined. */
export function listenProblem(setting: ListenSetting): Promise<string | undefined> {
  const { port, host, portVariable, hostVariable } = setting;
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'unknown';
      if (HOST_ERRORS.has(code)) resolve(`${hostVariable} ${host} is not an address this machine can listen on`);
      else if (code === 'EADDRINUSE')
        resolve(`${portVariable} ${port} is in use on ${hostVariable} ${host} (another process listens there)`);
      else resolve(`${portVariable} ${port} on ${hostVariable} ${host} cannot be listened on (${code})`);
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** The problems of every setting, one per address (port 0, "any free port", is tried on its host alone). */
export async function listenProblems(settings: readonly ListenSetting[]): Promise<string[]> {
  const found = await Promise.all(settings.map(listenProblem));
  return found.filter((problem): problem is string => problem !== undefined);
}
