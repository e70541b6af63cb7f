/** deploy/nats: the three cluster node configurations are valid for the installed nats-server and consistent. */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const files = [1, 2, 3].map((i) => join(process.cwd(), 'deploy/nats', `node-${i}.conf`));

describe('NATS cluster configuration (deploy/nats)', () => {
  it('is accepted by nats-server -t, one unique server_name per node, one cluster, routes to all three', async () => {
    const names: string[] = [];
    for (const file of files) {
      const { stderr, stdout } = await run('nats-server', ['-c', file, '-t']);
      expect(`${stdout}${stderr}`).toContain('is valid');
      const text = await readFile(file, 'utf8');
      names.push(/server_name: (\S+)/.exec(text)?.[1] ?? '');
      expect(text).toMatch(/name: gw-cluster/);
      expect(text.match(/nats:\/\/gw-nats-\d:6222/g)).toHaveLength(3);
    }
    expect(new Set(names).size).toBe(3);
  });
});
