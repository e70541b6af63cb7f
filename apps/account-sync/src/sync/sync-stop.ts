/** How a long read learns that the app is stopping: it ends at its next page, keeping what it read so far. */

/** A long read given up because the app is stopping (the next start reads again). */
export class SyncStoppedError extends Error {
  override readonly name = 'SyncStoppedError';
  constructor() {
    super('sync stopped: the app is shutting down');
  }
}

/** Set once by the engine's abort(); every read checks it between pages. */
export class SyncStop {
  private stopping = false;

  stop(): void {
    this.stopping = true;
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /** Throws SyncStoppedError once stopping. */
  check(): void {
    if (this.stopping) throw new SyncStoppedError();
  }
}
