export interface HealthCheckResult {
  up: boolean;
  detail?: string;
}
export type HealthCheck = () => HealthCheckResult | Promise<HealthCheckResult>;

export interface HealthReport {
  status: 'ok' | 'down';
  checks: Record<string, HealthCheckResult>;
}

/** One check per dependency, each bounded by a timeout so a hung dependency reads as down, not as a hung probe. */
export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();

  constructor(private readonly timeoutMs = 1_000) {}

  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  async report(): Promise<HealthReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => [name, await this.run(check)] as const),
    );
    const checks = Object.fromEntries(entries);
    return { status: entries.every(([, r]) => r.up) ? 'ok' : 'down', checks };
  }

  private async run(check: HealthCheck): Promise<HealthCheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<HealthCheckResult>((resolve) => {
      timer = setTimeout(() => resolve({ up: false, detail: `no answer within ${this.timeoutMs} ms` }), this.timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(check), timeout]);
    } catch (error) {
      return { up: false, detail: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }
}
