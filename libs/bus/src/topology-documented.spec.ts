/**
 * docs/nats-contract.md "Streams and buckets" against `connectorStreams`: every stream of the connector has a row,
 * and the row names every subject the stream captures (an outside integrator read only `order.outcome.>` for the
 * outcome stream, which captures the contradictions too).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Subjects } from '#contracts';
import { connectorStreams } from './topology.js';

const CONTRACT = readFileSync(join(process.cwd(), 'docs/nats-contract.md'), 'utf8');
const ACCOUNT = 'ACCT';

/** The table's rows by the stream they name (first cell, back quotes dropped), each with its subjects cell. */
function rows(): Map<string, string> {
  const start = CONTRACT.indexOf('\n## Streams and buckets\n');
  if (start < 0) throw new Error('docs/nats-contract.md has no "## Streams and buckets"');
  const byName = new Map<string, string>();
  for (const line of CONTRACT.slice(start).split('\n')) {
    if (!line.startsWith('| `')) continue;
    const [name = '', subjects = ''] = line.slice(1).split(' | ');
    byName.set(name.trim().replace(/`/g, ''), subjects);
  }
  return byName;
}

const documented = (text: string): string => text.replaceAll(ACCOUNT, '{account}');

describe('docs/nats-contract.md "Streams and buckets" names every subject each connector stream captures', () => {
  const table = rows();
  const streams = connectorStreams(new Subjects('gw.v1', ACCOUNT), {
    outcomeDuplicateWindowMs: 1,
    orderRetentionMs: 1,
    priceMaxAgeMs: 1,
    statusMaxAgeMs: 1,
  });

  it.each(streams.map((stream) => [documented(stream.name), stream.subjects.map(documented)] as const))(
    '%s',
    (name, subjects) => {
      const row = table.get(name);
      expect({ name, documented: row !== undefined }).toEqual({ name, documented: true });
      expect(subjects.filter((subject) => !row?.includes(`\`${subject}\``))).toEqual([]);
    },
  );
});
