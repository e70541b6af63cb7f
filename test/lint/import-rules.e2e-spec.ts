import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

/** The import rules of eslint.config.js, proven on code that breaks them (the real files pass `npm run lint`). */
const eslint = new ESLint({ cwd: process.cwd() });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
    .map((m) => m.message);
}

describe('import rules', () => {
  it('a library never imports an app', async () => {
    const found = await problems(
      'libs/bus/src/x.ts',
      "import { VenueSide } from '../../../apps/connector/src/venue/venue-side.js';\nexport const x = VenueSide;\n",
    );
    expect(found).toEqual([expect.stringContaining('never imports another app')]);
  });

  it('an app never imports another app', async () => {
    const found = await problems(
      'apps/connector/src/x.ts',
      "import { Market } from '../../sandbox-venue/src/trading/market/market.js';\nexport const x = Market;\n",
    );
    expect(found).toEqual([expect.stringContaining('never imports another app')]);
    expect(
      await problems(
        'apps/connector/src/x.ts',
        "import { VenueSide } from './venue/venue-side.js';\nexport const x = VenueSide;\n",
      ),
    ).toEqual([]);
  });

  it('the sandbox takes only types and protocol constants from #venue-api', async () => {
    expect(
      await problems(
        'apps/sandbox-venue/src/x.ts',
        "import { decodeServiceFrame } from '#venue-api';\nexport const x = decodeServiceFrame;\n",
      ),
    ).toEqual([expect.stringContaining('only types and protocol constants')]);
    expect(
      await problems(
        'apps/sandbox-venue/src/x.ts',
        "import { RestPath, type OrderReply } from '#venue-api';\nexport const x: OrderReply | string = RestPath.Token;\n",
      ),
    ).toEqual([]);
  });

  it('an app never imports the NATS client: libs/bus hands out its own handles', async () => {
    expect(
      await problems(
        'apps/connector/src/x.ts',
        "import type { Subscription } from '@nats-io/transport-node';\nexport type X = Subscription;\n",
      ),
    ).toEqual([expect.stringContaining('never the NATS client')]);
    expect(
      await problems(
        'apps/connector/src/x.ts',
        "import type { BusSubscription } from '#bus';\nexport type X = BusSubscription;\n",
      ),
    ).toEqual([]);
    // a library may (libs/bus is where the client lives), and so may a test
    expect(
      await problems(
        'libs/bus/src/x.ts',
        "import { connect } from '@nats-io/transport-node';\nexport const x = connect;\n",
      ),
    ).toEqual([]);
  });

  it('test support only in tests', async () => {
    const code = "import { freePort } from '#testing';\nexport const x = freePort;\n";
    expect(await problems('apps/connector/src/x.ts', code)).toEqual([expect.stringContaining('tests only')]);
    expect(
      await problems(
        'libs/bus/src/x.ts',
        "import { FakeClock } from './testing/fake-clock.js';\nexport const x = FakeClock;\n",
      ),
    ).toEqual([expect.stringContaining('tests only')]);
    expect(await problems('apps/connector/src/x.spec.ts', code)).toEqual([]);
  });
});
