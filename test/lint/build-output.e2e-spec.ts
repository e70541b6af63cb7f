/**
 * Test support is not compiled into `dist/` (what production runs): no libs/testing, no app `testing/`
 * folders, no specs, no benchmark. The e2e project's globalSetup has just built `dist/` with tsconfig.build.json.
 */
import { describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

const root = process.cwd();

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name)));
}

describe('the production build', () => {
  it('holds the apps and libraries but no test support, specs or benchmarks', async () => {
    const files = await filesUnder(join(root, 'dist'));
    expect(files).toContain('dist/apps/connector/src/main.js');
    expect(files).toContain('dist/libs/actors/src/index.js');
    const testSupport = files.filter((f) =>
      /(^dist\/libs\/testing\/|\/testing\/|\.spec\.js|\.e2e-spec\.js|^dist\/bench\/|^dist\/test\/)/.test(f),
    );
    expect(testSupport).toEqual([]);
  });
});
