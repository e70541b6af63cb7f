/**
 * Every address an app will listen on, tried before anything starts (runApp): a port another process holds or a
 * host that is not an address of this machine is a setting to fix, named like any bad setting — found only at
 * its `listen`, account-sync had already taken its account lease and started its parts (outside tester).
 */
import { createServer } from 'node:net';
import { ConfigError } from './config.js';
import { EXIT_CODE } from './exit-codes.js';

/** One address an app listens on, and the settings that chose it. */
export interface ListenSetting {
  port: number;
  host: string;
  portVariable: string;
  hostVariable: string;
}

/** Errors of the host itself (every port fails alike): not an address here, a name that does not resolve. */
const HOST_ERRORS = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EINVAL', 'EAFNOSUPPORT']);

/** Why an address cannot be listened on; `busy`: another process holds the port now (it may let it go). */
interface ListenProblem {
  problem: string;
  busy: boolean;
}

/** Why `setting` cannot be listened on, naming its variables (never a secret: a port and a host), or undefined. */
function listenProblem(setting: ListenSetting): Promise<ListenProblem | undefined> {
  const { port, host, portVariable, hostVariable } = setting;
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'unknown';
      if (HOST_ERRORS.has(code))
        resolve({ problem: `${hostVariable} ${host} is not an address this machine can listen on`, busy: false });
      else if (code === 'EADDRINUSE')
        resolve({
          problem: `${portVariable} ${port} is in use on ${hostVariable} ${host} (another process listens there)`,
          busy: true,
        });
      else
        resolve({
          problem: `${portVariable} ${port} on ${hostVariable} ${host} cannot be listened on (${code})`,
          busy: false,
        });
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** The problems of every setting, one per address (port 0, "any free port", is tried on its host alone). */
async function listenProblems(settings: readonly ListenSetting[]): Promise<ListenProblem[]> {
  const found = await Promise.all(settings.map(listenProblem));
  return found.filter((problem): problem is ListenProblem => problem !== undefined);
}

/**
 * Tries every address before anything starts. A host that cannot be listened on is a bad setting: ConfigError
 * (exit 78, do not restart). A port in use only, and every other address fine, may be the app's previous life
 * still stopping (a restart, a supervisor starting the next before the last has exited): named the same way, but
 * exit 75 (start it again), so a supervisor that restarts on 75 and not on 78 tries again instead of leaving it down.
 */
export async function refuseUnusableListens(
  settings: readonly ListenSetting[],
  app: string,
  docs: string,
): Promise<void> {
  const problems = await listenProblems(settings);
  if (problems.length === 0) return;
  if (problems.some(({ busy }) => !busy)) throw new ConfigError(problems.map(({ problem }) => problem));
  for (const { problem } of problems) process.stderr.write(`${app}: configuration: ${problem}\n`);
  process.stderr.write(`${app}: see ${docs}; nothing was started; exit 75: start it again once the port is free\n`);
  process.exit(EXIT_CODE.unavailable);
}
