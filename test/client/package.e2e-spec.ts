/**
 * The SDK from a separate project: `npm run pack:client` builds the package (libs/client + libs/contracts with
 * type declarations, the gw bin), a fresh folder installs the tarball, type-checks a TypeScript strategy
 * against it, runs it against the stack, and runs the installed `gw`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { removeDataDir, startLauncher, type RunningLauncher } from '../stack/launcher.js';

const run = promisify(execFile);

const STRATEGY = `import { GatewayClient, type PriceUpdate } from 'gw-client';
import { filter, firstValueFrom } from 'rxjs';

declare const process: { env: Record<string, string | undefined>; stdout: { write(text: string): void } };
const client = await GatewayClient.connect({ servers: process.env.NATS_URL ?? '', account: 'default' });
// as docs/strategy-guide.md writes it (strict: the group may be unknown)
const group = (await client.accountGroups.natural())?.uuid;
if (group === undefined) throw new Error('the venue reported no natural account group');
const update: PriceUpdate = await firstValueFrom(
  client.prices
    .watch({ instrument: 'BTC.USD', quantity: '1', currency: 'BTC', tenor: 'T', accountGroup: group })
    .pipe(filter((u) => u.tradable)),
);
const bid: string | undefined = update.price.bid?.price;
process.stdout.write(JSON.stringify({ status: update.price.status, bid }) + "\\n");
await client.close();
`;

describe('the SDK package used from a fresh project', () => {
  let stack: RunningLauncher;
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'gw-sdk-user-'));
    // packing (tsc) and starting the stack are independent: side by side
    const [packed, launched] = await Promise.allSettled([
      run(process.execPath, ['dist/tools/client-package/src/main.js'], { encoding: 'utf8' }),
      startLauncher(),
    ]);
    if (launched.status === 'fulfilled') stack = launched.value;
    if (packed.status === 'rejected') throw packed.reason;
    if (launched.status === 'rejected') throw launched.reason;
    tarball = packed.value.stdout.trim().split('\n').pop() ?? '';
  }, 90_000); // packs the SDK and starts the whole stack (the launcher alone may take up to 60 s on a busy machine)
  afterAll(async () => {
    await stack?.interrupt();
    await removeDataDir(stack?.dataDir ?? '');
    await rm(project, { recursive: true, force: true });
  });

  it('installs, type-checks a strategy against the declarations, runs it, and runs gw', async () => {
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'my-strategy', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, 'rxjs@7.8.2'], {
      cwd: project,
      timeout: 120_000,
    });
    // the package holds no test files (they import jest, which it does not depend on)
    const shipped = await readdir(join(project, 'node_modules/gw-client/libs'), { recursive: true });
    expect(shipped.filter((file) => file.includes('.spec.'))).toEqual([]);
    await writeFile(join(project, 'strategy.ts'), STRATEGY);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: true,
          types: [],
          lib: ['ES2023', 'DOM'],
        },
        files: ['strategy.ts'],
      }),
    );
    // type-checked and compiled with this repository's TypeScript, from the consumer's folder
    const tsc = createRequire(join(process.cwd(), 'package.json')).resolve('typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' }).catch(
      (e: { stdout: string }) => {
        throw new Error(`the strategy does not type-check against the package:\n${e.stdout}`);
      },
    );
    const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', NATS_URL: stack.natsUrl };
    const out = await run(process.execPath, ['strategy.js'], { cwd: project, env, encoding: 'utf8', timeout: 30_000 });
    expect(JSON.parse(out.stdout)).toEqual({ status: 'live', bid: expect.stringMatching(/^\d+(\.\d+)?$/) });

    const status = await run(join(project, 'node_modules/.bin/gw'), ['status', '--json'], {
      cwd: project,
      env,
      encoding: 'utf8',
    });
    expect(JSON.parse(status.stdout)).toMatchObject({ account: 'default', connector: { sessionState: 'open' } });
  }, 240_000); // npm install (bounded at 120 s), tsc, the strategy (30 s) and gw
});
