import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The app's Prometheus registry. Every metric is registered here (`registers: [registry]`), labelled
 * with the app name. Labels must be bounded: never an order id, a quote id or a free-form size.
 */
export class MetricsRegistry extends Registry {
  constructor(app: string, options: { defaultMetrics?: boolean } = {}) {
    super();
    this.setDefaultLabels({ app });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this });
  }
}
