import type { ChildProcess } from 'node:child_process';

/**
 * Resolves once a spawned nats-server logs "Server is ready" on stderr (then lets its output drain unread);
 * rejects, with the end of its log, when it exits first or is not ready within `timeoutMs` (then it is killed).
 */
export function untilNatsReady(child: ChildProcess, name: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} not ready within ${timeoutMs} ms:\n${log.slice(-2_000)}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`could not start nats-server (is the Debian package installed?): ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready:\n${log.slice(-2_000)}`));
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Server is ready')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stderr?.removeAllListeners('data');
        child.stderr?.resume();
        resolve();
      }
    });
  });
}
