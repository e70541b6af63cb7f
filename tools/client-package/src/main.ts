/**
 * `npm run pack:client`: the SDK and the `gw` CLI as an npm package another project installs (a tarball in
 * `dist-client/`). It holds libs/client and libs/contracts compiled with their type declarations; the
 * package's own `imports` map resolves `#contracts` inside it, so the compiled code is used unchanged.
 * Prints the tarball's path.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const root = process.cwd();
const out = resolve(root, 'dist-client');
const DEPENDENCIES = [
  '@nats-io/jetstream',
  '@nats-io/kv',
  '@nats-io/transport-node',
  'class-validator',
  'reflect-metadata',
  'rxjs',
];

interface RootPackage {
  version: string;
  dependencies: Record<string, string>;
  engines: Record<string, string>;
}

function main(): void {
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'libs/client/tsconfig.package.json'], { stdio: 'inherit', cwd: root });
  const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as RootPackage;
  const cli = 'libs/client/src/cli/main.js';
  const manifest = {
    name: 'gw-client',
    version: rootPackage.version,
    description: 'Strategy SDK and gw CLI of the brokerage gateway (NATS contract: asyncapi.yaml)',
    type: 'module',
    engines: rootPackage.engines,
    exports: {
      '.': { types: './libs/client/src/index.d.ts', default: './libs/client/src/index.js' },
    },
    imports: {
      '#contracts': { types: './libs/contracts/src/index.d.ts', default: './libs/contracts/src/index.js' },
    },
    bin: { gw: cli },
    files: ['libs', 'asyncapi.yaml', 'README.md'],
    dependencies: Object.fromEntries(
      DEPENDENCIES.map((name) => {
        const version = rootPackage.dependencies[name];
        if (version === undefined) throw new Error(`${name} is not a dependency of the repository`);
        return [name, version];
      }),
    ),
  };
  writeFileSync(join(out, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(join(out, 'asyncapi.yaml'), readFileSync(join(root, 'docs/asyncapi.yaml')));
  writeFileSync(
    join(out, 'README.md'),
    '# gw-client\n\nStrategy SDK (`GatewayClient`) and the `gw` CLI of the brokerage gateway. Guide: docs/strategy-guide.md of the gateway repository; contract: asyncapi.yaml.\n\n' +
      'Node 20 or newer. `npm install` on Node 20 warns EBADENGINE for `@nats-io/nuid` (pinned by the NATS client, it declares node >= 22): it runs on Node 20, where the gateway is built and tested.\n',
  );
  chmodSync(join(out, cli), 0o755);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const tarball = execFileSync(npm, ['pack', '--silent'], { cwd: out, encoding: 'utf8' }).trim().split('\n').pop();
  process.stdout.write(`${join(out, tarball ?? '')}\n`);
}

main();
