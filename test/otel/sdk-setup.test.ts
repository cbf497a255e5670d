import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { instrumentThrottler } from '../../src/otel/index.js';
import { repo } from '../support/module-graph.js';

/**
 * docs/metrics.md's setup, as a user follows it: the SDK's MeterProvider with a periodic reader,
 * registered globally, `metrics.getMeter` handed to `instrumentThrottler`; and the versions the page
 * says work together, which are the ones installed here (the SDK's peer range pins the API's minor:
 * sdk-metrics 2.x takes @opentelemetry/api 1.9.x only, so api 1.10 with it is refused by npm).
 */
const installed = (name: string): { version: string; peerDependencies?: Record<string, string> } =>
  JSON.parse(readFileSync(join(repo, 'node_modules', name, 'package.json'), 'utf8'));

/** `>=1.9.0 <1.10.0`, the form the SDK's peer ranges take, checked without a semver library. */
function inRange(version: string, range: string): boolean {
  const parts = (text: string) => text.split('.').map(Number) as [number, number, number];
  const compare = (a: string, b: string) => {
    const [x, y] = [parts(a), parts(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return 0;
  };
  return range.split(/\s+/).every((bound) => {
    const [, op, at] = /^(>=|<|\^)(\d+\.\d+\.\d+)$/.exec(bound) ?? [];
    if (op === '>=') return compare(version, at as string) >= 0;
    if (op === '<') return compare(version, at as string) < 0;
    if (op === '^') return compare(version, at as string) >= 0 && parts(version)[0] === parts(at as string)[0];
    throw new Error(`a range this check does not read: ${range}`);
  });
}

afterEach(() => metrics.disable());

describe("docs/metrics.md's SDK setup", () => {
  it('names the versions installed and tested here, and each SDK package takes that API version', () => {
    const page = readFileSync(join(repo, 'docs', 'metrics.md'), 'utf8');
    const api = installed('@opentelemetry/api').version;
    const sdk = installed('@opentelemetry/sdk-metrics');
    const exporter = installed('@opentelemetry/exporter-prometheus');
    expect(page).toContain(
      `\`@opentelemetry/api\` ${api}, \`@opentelemetry/sdk-metrics\` ${sdk.version} and \`@opentelemetry/exporter-prometheus\` ${exporter.version}`,
    );
    expect(inRange(api, sdk.peerDependencies?.['@opentelemetry/api'] ?? '')).toBe(true);
    expect(inRange(api, exporter.peerDependencies?.['@opentelemetry/api'] ?? '')).toBe(true);
    // The conflict the page warns of: this SDK major refuses the next API minor.
    const [major, minor] = api.split('.').map(Number) as [number, number];
    expect(inRange(`${major}.${minor + 1}.0`, sdk.peerDependencies?.['@opentelemetry/api'] ?? '')).toBe(false);
  });

  it('records a throttler through the global meter once a MeterProvider is registered, exported on flush', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    // A long interval: the test flushes by hand, so nothing waits on real time.
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const instrumentation = instrumentThrottler(throttler, { meter: metrics.getMeter('my-service'), name: 'github' });
    await Promise.all([1, 2, 3].map((n) => throttler.schedule(() => n)));
    await provider.forceFlush();
    const delivered = exporter
      .getMetrics()
      .flatMap((resource) => resource.scopeMetrics)
      .flatMap((scope) => scope.metrics)
      .filter((metric) => metric.descriptor.name === 'throttler.messages')
      .flatMap((metric) => metric.dataPoints as Array<{ attributes: Record<string, unknown>; value: unknown }>)
      .filter((point) => point.attributes['throttler.result'] === 'delivered');
    expect(delivered.map((point) => [point.attributes['throttler.name'], point.value])).toEqual([['github', 3]]);
    instrumentation.stop();
    await throttler.stop();
    await provider.shutdown();
  });
});
