/**
 * Size-based rotation of a component's log, `<data>/logs/<name>.log` (docs/operations.md "Logs"): the decision
 * alone, from the log's size and the settings to the steps that log-rotator.ts carries out. The child keeps the
 * file open (O_APPEND, the launcher holds no pipe: a launcher killed outright leaves it logging), so the log is
 * never renamed: it is copied to `.1` and truncated in place, and the child's next line lands at its new end.
 */

export interface LogRotationSettings {
  /** Rotate once the log is this large (bytes); 0: never. */
  maxBytes: number;
  /** Files kept per component, the live log included: `<name>.log`, `.1` … `.<files − 1>`. */
  files: number;
}

export type RotationStep =
  | { kind: 'remove'; file: string }
  | { kind: 'rename'; from: string; to: string }
  /** Copy `from` to `to`, then what was appended meanwhile, then truncate `from` to 0 bytes. */
  | { kind: 'copy-truncate'; from: string; to: string }
  /** Only one file kept: the log emptied in place. */
  | { kind: 'truncate'; file: string };

/** The steps, in order, for the log `file` of `sizeBytes`; none while it is under the size or rotation is off. */
export function rotationSteps(file: string, sizeBytes: number, settings: LogRotationSettings): RotationStep[] {
  if (settings.maxBytes === 0 || sizeBytes < settings.maxBytes) return [];
  if (settings.files <= 1) return [{ kind: 'truncate', file }];
  const kept = (n: number): string => `${file}.${n}`;
  const shifts: RotationStep[] = [];
  for (let n = settings.files - 2; n >= 1; n -= 1) shifts.push({ kind: 'rename', from: kept(n), to: kept(n + 1) });
  return [
    { kind: 'remove', file: kept(settings.files - 1) },
    ...shifts,
    { kind: 'copy-truncate', from: file, to: kept(1) },
  ];
}
