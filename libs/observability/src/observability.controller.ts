import { Controller, Get, Header, Inject, ServiceUnavailableException } from '@nestjs/common';
import { HealthRegistry, type HealthReport } from './health-registry.js';
import { MetricsRegistry } from './metrics-registry.js';

@Controller()
export class ObservabilityController {
  constructor(
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(MetricsRegistry) private readonly metrics: MetricsRegistry,
  ) {}

  /** 200 with the report when every dependency is up; 503 with the same report otherwise. */
  @Get('health')
  async getHealth(): Promise<HealthReport> {
    const report = await this.health.report();
    if (report.status !== 'ok') throw new ServiceUnavailableException(report);
    return report;
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  getMetrics(): Promise<string> {
    return this.metrics.metrics();
  }
}
