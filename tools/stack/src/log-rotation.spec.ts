import { describe, expect, it } from '@jest/globals';
import { rotationSteps } from './log-rotation.js';

const LOG = '/data/logs/connector.log';

describe('log rotation: what to do with one component log of a given size', () => {
  it('nothing while the log is under the size, or when rotation is off (max bytes 0)', () => {
    expect(rotationSteps(LOG, 999, { maxBytes: 1_000, files: 3 })).toEqual([]);
    expect(rotationSteps(LOG, 5_000_000, { maxBytes: 0, files: 3 })).toEqual([]);
    expect(rotationSteps(LOG, 0, { maxBytes: 1_000, files: 3 })).toEqual([]);
  });

  it('at the size: the oldest removed, the others shifted up, the log copied to .1 and truncated in place', () => {
    expect(rotationSteps(LOG, 1_000, { maxBytes: 1_000, files: 3 })).toEqual([
      { kind: 'remove', file: `${LOG}.2` },
      { kind: 'rename', from: `${LOG}.1`, to: `${LOG}.2` },
      { kind: 'copy-truncate', from: LOG, to: `${LOG}.1` },
    ]);
    expect(rotationSteps(LOG, 7_000, { maxBytes: 1_000, files: 5 })).toEqual([
      { kind: 'remove', file: `${LOG}.4` },
      { kind: 'rename', from: `${LOG}.3`, to: `${LOG}.4` },
      { kind: 'rename', from: `${LOG}.2`, to: `${LOG}.3` },
      { kind: 'rename', from: `${LOG}.1`, to: `${LOG}.2` },
      { kind: 'copy-truncate', from: LOG, to: `${LOG}.1` },
    ]);
  });

  it('two files: .1 replaced by the copy; one file: the log only truncated, nothing kept', () => {
    expect(rotationSteps(LOG, 1_000, { maxBytes: 1_000, files: 2 })).toEqual([
      { kind: 'remove', file: `${LOG}.1` },
      { kind: 'copy-truncate', from: LOG, to: `${LOG}.1` },
    ]);
    expect(rotationSteps(LOG, 1_000, { maxBytes: 1_000, files: 1 })).toEqual([{ kind: 'truncate', file: LOG }]);
  });
});
