/**
 * Waiting in tests without asserting wall time: poll a condition until it holds, fail with a message
 * naming what was awaited. The bound is a safety net against a hang, never the thing tested.
 */
export interface EventuallyOptions {
  /** What is awaited, for the failure message. */
  what?: string;
  /** Default 10 s: generous, so a loaded CI machine does not fail a correct test. */
  timeoutMs?: number;
  intervalMs?: number;
}

/** Polls `check` until it returns a value other than undefined, and returns that value. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  options: EventuallyOptions | number = {},
): Promise<T> {
  const {
    what = 'condition',
    timeoutMs = 10_000,
    intervalMs = 20,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Polls a boolean condition until it is true. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what = 'condition',
  timeoutMs = 10_000,
): Promise<void> {
  await eventually(async () => ((await condition()) ? true : undefined), { what, timeoutMs });
}
