import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { instrumentThrottler, type ThrottlerInstrumentation } from '../../../src/otel/index.js';

/** A reader the page collects when it draws: no timer of its own. */
class PageReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One series as the card shows it: the instrument, what tells it apart, its value (a histogram's count and mean). */
export interface MetricLine {
  name: string;
  attributes: string;
  value: number;
  /** Histograms: the mean of what was recorded (seconds for the time in queue). */
  mean?: number;
}

/**
 * The page's throttlers instrumented with `xstate-throttler/otel` through the real OpenTelemetry SDK,
 * read the way an exporter would (`collect()`), so each card shows what an operator's dashboard would.
 */
export class LaneMetrics {
  private readonly reader = new PageReader();
  private readonly provider = new MeterProvider({ readers: [this.reader] });
  private readonly instrumentation: ThrottlerInstrumentation;

  constructor(actor: object, name: string) {
    this.instrumentation = instrumentThrottler(actor, { meter: this.provider.getMeter('live-page'), name });
  }

  async read(): Promise<MetricLine[]> {
    const { resourceMetrics } = await this.reader.collect();
    const lines: MetricLine[] = [];
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        for (const point of metric.dataPoints) {
          // The name each series carries is the card's own: only the attributes that tell series apart are shown.
          const attributes = Object.entries(point.attributes)
            .filter(([key]) => key !== 'throttler.name')
            .map(([key, value]) => `${key.replace(/^throttler\./, '')}=${String(value)}`)
            .join(' ');
          const value = point.value as number | { count: number; sum?: number };
          if (metric.dataPointType === DataPointType.HISTOGRAM && typeof value === 'object') {
            const mean = value.count === 0 ? 0 : (value.sum ?? 0) / value.count;
            lines.push({ name: metric.descriptor.name, attributes, value: value.count, mean });
          } else lines.push({ name: metric.descriptor.name, attributes, value: value as number });
        }
      }
    }
    return lines;
  }

  stop(): void {
    this.instrumentation.stop();
    void this.provider.shutdown();
  }
}
