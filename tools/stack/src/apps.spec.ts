import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONNECTOR_NODE_FLAGS } from './apps.js';

const SCRIPTS = (
  JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

describe("the connector's node flags", () => {
  it('are given by `npm run start:connector` as by the launcher and the bench (CONNECTOR_NODE_FLAGS)', () => {
    const script = SCRIPTS['start:connector'] ?? '';
    const node = script.slice(script.indexOf('exec node '));
    expect(node).toBe(`exec node ${CONNECTOR_NODE_FLAGS.join(' ')} dist/apps/connector/src/main.js`);
  });
});
