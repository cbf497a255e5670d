import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';

/** A reader collected by hand: no timer of its own, so it reads the same in virtual time. */
class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One exported series: its attributes and its value (a histogram's: count and sum). */
export interface Point {
  attributes: Record<string, unknown>;
  value: number;
  count?: number;
  sum?: number;
  unit: string;
}

/**
 * The real OpenTelemetry SDK with an in-memory exporter, cumulative: `read()` collects now, exports to
 * the exporter and gives the export's points by instrument name. The exporter stores what it is given at
 * once and acknowledges on a setTimeout(0), which virtual time would hold: nothing here waits for it.
 */
export function inMemoryMetrics() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new ManualReader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter('xstate-throttler-test');
  async function read(): Promise<Map<string, Point[]>> {
    exporter.reset();
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    exporter.export(resourceMetrics, () => {});
    const byName = new Map<string, Point[]>();
    for (const resource of exporter.getMetrics())
      for (const scope of resource.scopeMetrics)
        for (const metric of scope.metrics) {
          const points = byName.get(metric.descriptor.name) ?? [];
          for (const point of metric.dataPoints) {
            const value = point.value as number | { count: number; sum?: number };
            if (metric.dataPointType === DataPointType.HISTOGRAM && typeof value === 'object') {
              points.push({
                attributes: { ...point.attributes },
                value: value.count,
                count: value.count,
                sum: value.sum ?? 0,
                unit: metric.descriptor.unit,
              });
            } else
              points.push({
                attributes: { ...point.attributes },
                value: value as number,
                unit: metric.descriptor.unit,
              });
          }
          byName.set(metric.descriptor.name, points);
        }
    return byName;
  }
  return { meter, read, shutdown: () => provider.shutdown() };
}

/** The value of the one point whose attributes include `match`; 0 when there is none. */
export function pointValue(points: Point[] | undefined, match: Record<string, unknown> = {}): number {
  const found = (points ?? []).filter((point) =>
    Object.entries(match).every(([key, value]) => point.attributes[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} points match ${JSON.stringify(match)}`);
  return found[0]?.value ?? 0;
}
