import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';

describe('the repository holds no unresolved merge', () => {
  it('has no conflict markers in any tracked file (docs/nats-contract.md published two versions of one rule)', () => {
    // the opening and closing lines only: a line of seven '=' alone is also a Markdown heading's underline
    let found = '';
    try {
      found = execFileSync('git', ['grep', '-nE', '^(<<<<<<< |>>>>>>> )', '--', '.', ':!*.snap'], {
        encoding: 'utf8',
      });
    } catch (error) {
      // git grep exits 1 when nothing matches
      if ((error as { status?: number }).status !== 1) throw error;
    }
    expect(found).toBe('');
  });
});
