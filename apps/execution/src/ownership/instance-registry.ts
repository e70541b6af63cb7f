/**
 * Who is alive among the execution instances of one account: each instance renews its heartbeat key
 * (`instance.<id>`) in KV; another instance is dead once its key is gone (a clean stop removes it) or its
 * revision has not moved for the lease time by the observer's own clock (no clock comparison across hosts).
 * Orders of a dead instance are taken over by compare-and-set on their record (see OrderOwnership).
 */
import type { KvBucket } from '#bus';
import type { Cancel, Clock } from '#actors';

export class InstanceRegistry {
  private readonly seen = new Map<string, { revision: number; at: number }>();
  private cancel: Cancel | undefined;

  constructor(
    private readonly bucket: KvBucket,
    readonly instanceId: string,
    private readonly leaseMs: number,
    private readonly clock: Clock,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.cancel = this.clock.setInterval(() => void this.beat().catch(() => undefined), Math.max(50, this.leaseMs / 3));
  }

  /** Stops the heartbeat and removes it: the other instances take this one's orders at their next sweep. */
  async stop(release: boolean): Promise<void> {
    this.cancel?.();
    this.cancel = undefined;
    if (release) await this.bucket.remove(key(this.instanceId)).catch(() => undefined);
  }

  async isAlive(instanceId: string): Promise<boolean> {
    if (instanceId === this.instanceId) return true;
    const entry = await this.bucket.get<{ at: number }>(key(instanceId));
    const now = this.clock.now();
    if (entry === undefined) {
      this.seen.delete(instanceId);
      return false;
    }
    const last = this.seen.get(instanceId);
    if (last === undefined) {
      // First sight: judged by the time the instance wrote in its beat (its clock), until its revision is seen move.
      this.seen.set(instanceId, { revision: entry.revision, at: Math.min(now, entry.value.at) });
      return now - entry.value.at < this.leaseMs;
    }
    if (last.revision !== entry.revision) {
      this.seen.set(instanceId, { revision: entry.revision, at: now });
      return true;
    }
    return now - last.at < this.leaseMs;
  }

  private async beat(): Promise<void> {
    await this.bucket.put(key(this.instanceId), { at: this.clock.now() });
  }
}

function key(instanceId: string): string {
  return `instance.${instanceId}`;
}
