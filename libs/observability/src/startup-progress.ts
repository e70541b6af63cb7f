/**
 * What an app's start-up is doing now, for `/health` while the port answers 503 (`startup: <step>`), and what
 * to let go if this start-up attempt is abandoned. One per attempt (`startNestApp` makes it and hands it to the
 * app's module): "waiting for NATS" until the bus is connected, then the step the app names ("declaring streams
 * and buckets", "venue session: fetching token", …) — never "waiting for NATS" while NATS is up.
 */

/** The longest step text told (a step names a phase, never data). */
export const STARTUP_STEP_MAX = 120;

export const WAITING_FOR_NATS = 'waiting for NATS';

export class StartupProgress {
  private current: string;
  private readonly releases: (() => Promise<void> | void)[] = [];

  constructor(initial: string = WAITING_FOR_NATS) {
    this.current = bounded(initial);
  }

  /** The step running now (bounded text). */
  get step(): string {
    return this.current;
  }

  /** Names the step that runs from now on. */
  enter(step: string): void {
    this.current = bounded(step);
  }

  /**
   * What to close if this attempt is given up before its app exists to be closed (a failure while the modules
   * are created): the bus connection registers its close here.
   */
  onAbandon(release: () => Promise<void> | void): void {
    this.releases.push(release);
  }

  /** Runs every release, last registered first; one failing does not keep the others from running. */
  async abandon(): Promise<void> {
    while (this.releases.length > 0) {
      const release = this.releases.pop() as () => Promise<void> | void;
      try {
        await release();
      } catch {
        // what could not be closed is closed by the process's exit, if it comes to that
      }
    }
  }
}

function bounded(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= STARTUP_STEP_MAX ? line : `${line.slice(0, STARTUP_STEP_MAX - 1)}…`;
}
