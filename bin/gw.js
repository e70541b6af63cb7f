#!/usr/bin/env node
/* global process, URL */
// `npx gw …` in this repository: the CLI of libs/client, from the build (`npm run build` or `npm start` first).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/libs/client/src/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write(
    'gw: not built yet — run `npm run build` (or `npm start`, which builds) in the repository first\n',
  );
  process.exit(1);
}
await import(main);
