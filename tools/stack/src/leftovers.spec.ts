import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandOf, recordChildren, stopLeftovers } from './leftovers.js';

describe('leftovers of a launcher killed without stopping', () => {
  it('stops the recorded components still running, leaves a pid now running something else, forgets the record', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'gw-leftovers-'));
    const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const pid = child.pid ?? 0;
    const said: string[] = [];
    try {
      expect(commandOf(pid)).toBe('sleep 300');
      await recordChildren(dataDir, [
        { name: 'nats-server', pid, command: 'sleep 300' },
        { name: 'connector', pid: process.pid, command: 'node something-else' }, // the pid was given to another
      ]);
      const stopped = await stopLeftovers(dataDir, (line) => said.push(line));
      expect(stopped.map((c) => c.name)).toEqual(['nats-server']);
      expect(await exited).toBe('SIGTERM');
      expect(said).toEqual([
        `stack: an earlier stack on this data folder did not stop its components; stopping them first: nats-server (pid ${pid})`,
      ]);
      expect(await readdir(dataDir)).toEqual([]);
      expect(await stopLeftovers(dataDir, (line) => said.push(line))).toEqual([]); // nothing recorded: nothing said
      expect(said).toHaveLength(1);
    } finally {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('the record is never seen half-written: it is rewritten as each component starts, and read after a SIGKILL', async () => {
    // hC: a reader during a rewrite saw an empty file (writeFile truncates first); a launcher killed at that moment
    // left a record the next start could not read, so it stopped none of the leftovers.
    const dataDir = await mkdtemp(join(tmpdir(), 'gw-leftovers-'));
    try {
      const children = Array.from({ length: 5 }, (_, i) => ({ name: `c${i}`, pid: 1000 + i, command: 'node x.js' }));
      await recordChildren(dataDir, children);
      const unreadable: string[] = [];
      let writing = true;
      const reader = (async () => {
        while (writing) {
          const text = await readFile(join(dataDir, 'stack.children.json'), 'utf8');
          try {
            JSON.parse(text);
          } catch {
            unreadable.push(text);
          }
        }
      })();
      for (let i = 0; i < 200; i++) await recordChildren(dataDir, children);
      writing = false;
      await reader;
      expect(unreadable).toEqual([]);
      expect(await readdir(dataDir)).toEqual(['stack.children.json']);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
