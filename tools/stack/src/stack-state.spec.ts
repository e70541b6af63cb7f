import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStackState, lockDataDir } from './stack-state.js';

describe('stack state in the data folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-stack-state-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps the session id from the first start; an explicit one replaces it', async () => {
    const first = await loadStackState(dir);
    expect(first.found).toBe(false);
    expect(first.state.sessionId).toMatch(/^gw-[0-9a-f-]{13}$/);
    const second = await loadStackState(dir);
    expect(second).toEqual({ found: true, state: first.state });
    const chosen = await loadStackState(dir, 'my-session');
    expect(chosen.state).toMatchObject({ sessionId: 'my-session', createdAt: first.state.createdAt });
    expect((await loadStackState(dir)).state.sessionId).toBe('my-session');
  });

  it('one launcher per data folder: a lock held by a live process refuses, a stale one is taken', async () => {
    const lock = await lockDataDir(dir);
    if (!('release' in lock)) throw new Error('lock refused');
    // our own pid is "us"; a live other pid (the parent of this test) holds it
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'stack.lock'), `${process.ppid}\n`);
    expect(await lockDataDir(dir)).toEqual({ heldBy: process.ppid });
    await writeFile(join(dir, 'stack.lock'), '999999999\n');
    const taken = await lockDataDir(dir);
    expect('release' in taken).toBe(true);
    if ('release' in taken) await taken.release();
  });
});
