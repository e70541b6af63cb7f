/**
 * The alert rules are valid and unit-tested (promtool, from Debian's prometheus package, installed by
 * deploy/install.sh), and each alert is complete: a `Gateway…` name, a severity, summary, description, a
 * runbook_url whose section exists in docs/runbook.md, at least one promtool test case, and a row in docs/operations.md's
 * alert table with its severity and rules file.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const dir = join(process.cwd(), 'deploy/prometheus');

async function filesIn(sub: string): Promise<string[]> {
  return (await readdir(join(dir, sub))).filter((f) => f.endsWith('.yml')).map((f) => join(dir, sub, f));
}

/** Each `- alert:` block of a rules file, as text (the files are written one alert per block). */
function alertBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  const parts = text.split(/^\s*- alert: /m).slice(1);
  for (const part of parts) {
    const name = part.slice(0, part.indexOf('\n')).trim();
    blocks.set(name, part);
  }
  return blocks;
}

describe('Prometheus alert rules (deploy/prometheus)', () => {
  it('pass promtool check rules and promtool test rules', async () => {
    const rules = await filesIn('rules');
    const tests = await filesIn('tests');
    expect(rules.length).toBeGreaterThan(0);
    await expect(run('promtool', ['check', 'rules', ...rules])).resolves.toBeDefined();
    const { stdout } = await run('promtool', ['test', 'rules', ...tests], { cwd: join(dir, 'tests') });
    expect(stdout).toContain('SUCCESS');
    await expect(run('promtool', ['check', 'config', join(dir, 'prometheus.yml')])).resolves.toBeDefined();
  });

  it('name, label, annotate, document and test every alert', async () => {
    const runbook = await readFile(join(process.cwd(), 'docs/runbook.md'), 'utf8');
    // docs/operations.md's alert table claims to list every alert, with its severity and rules file
    const operations = await readFile(join(process.cwd(), 'docs/operations.md'), 'utf8');
    const listed = new Map(
      [...operations.matchAll(/^\| `(Gateway\w+)` \| (\w+) \|.*\| `(\S+\.yml)` \|$/gm)].map((m) => [
        m[1],
        `${m[2]} ${m[3]}`,
      ]),
    );
    const anchors = new Set(
      [...runbook.matchAll(/^## (\S+)/gm)].map((m) => `docs/runbook.md#${(m[1] ?? '').toLowerCase()}`),
    );
    const tested = new Set<string>();
    for (const file of await filesIn('tests')) {
      for (const m of (await readFile(file, 'utf8')).matchAll(/alertname: (\S+)/g)) tested.add(m[1] ?? '');
    }
    const problems: string[] = [];
    let count = 0;
    for (const file of await filesIn('rules')) {
      for (const [name, block] of alertBlocks(await readFile(file, 'utf8'))) {
        count += 1;
        if (!/^Gateway[A-Z]\w+$/.test(name)) problems.push(`${name}: name must be Gateway…`);
        if (!/severity: (critical|warning|info)/.test(block)) problems.push(`${name}: no severity`);
        for (const key of ['summary', 'description']) {
          if (!new RegExp(`${key}: \\S`).test(block)) problems.push(`${name}: no ${key}`);
        }
        const url = /runbook_url: '([^']+)'/.exec(block)?.[1];
        if (url === undefined || !anchors.has(url)) problems.push(`${name}: runbook_url ${url} has no section`);
        if (!tested.has(name)) problems.push(`${name}: no promtool test case`);
        const severity = /severity: (\w+)/.exec(block)?.[1];
        const row = `${severity} ${file.slice(file.lastIndexOf('/') + 1)}`;
        if (listed.get(name) !== row)
          problems.push(`${name}: docs/operations.md's alert table says ${listed.get(name)}, not ${row}`);
      }
    }
    expect(count).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
