/**
 * The audit of every window (`auditThrottler`, engine/audit/) as two instruments, read when the SDK
 * collects: the fullest any window of a rate has been since the throttler started, as a fraction of the
 * limit, and how many windows held more than the limit. Lines per rate overall, per configured channel,
 * for the keys together, and for a key only where the `channels` option names it (bounded cardinality).
 */
import type { Attributes, BatchObservableResult, Meter, Observable } from '@opentelemetry/api';
import type { RateAudit } from '../machine/index.js';
import { THROTTLER_ATTRIBUTES, THROTTLER_METRICS } from './names.js';
import { type CheckedOptions, define } from './options.js';
import type { ThrottlerView } from './throttler-view.js';

/** Attribute sets kept for the audit's series; more are built again as they are needed. */
const MAX_CACHED = 1000;

export class AuditSeries {
  readonly observables: Observable[];
  private readonly peak: Observable;
  private readonly overruns: Observable;
  private readonly keys: ReadonlySet<string>;
  private readonly attributes = new Map<string, Attributes>();

  constructor(
    meter: Meter,
    private readonly options: CheckedOptions,
    private readonly view: ThrottlerView,
  ) {
    const m = THROTTLER_METRICS;
    this.peak = meter.createObservableGauge(m.windowPeakUtilization.name, {
      unit: m.windowPeakUtilization.unit,
      description: 'The most any window of a rate has held since the throttler started, as a fraction of its limit.',
    });
    this.overruns = meter.createObservableCounter(m.windowOverruns.name, {
      unit: m.windowOverruns.unit,
      description: 'Windows of a rate that held more than its limit (0 is the promise kept).',
    });
    this.observables = [this.peak, this.overruns];
    this.keys = new Set(options.channels);
  }

  observe(result: BatchObservableResult): void {
    const report = this.view.audit();
    if (report === undefined) return;
    for (const line of report.rates) {
      if (line.scope === 'key' && !this.keys.has(line.name as string)) continue;
      const attributes = this.attributesOf(line);
      result.observe(this.peak, line.most / line.limit, attributes);
      result.observe(this.overruns, line.windowsOver, attributes);
    }
  }

  private attributesOf(line: RateAudit): Attributes {
    const key = JSON.stringify([line.scope, line.rate, line.name ?? null, line.dimension ?? null]);
    let attributes = this.attributes.get(key);
    if (attributes === undefined) {
      if (this.attributes.size >= MAX_CACHED) this.attributes.clear();
      attributes = { ...this.options.base };
      define(attributes, THROTTLER_ATTRIBUTES.rate, line.rate);
      define(attributes, THROTTLER_ATTRIBUTES.scope, line.scope);
      if (line.dimension !== undefined) define(attributes, THROTTLER_ATTRIBUTES.dimension, line.dimension);
      if (line.name !== undefined) define(attributes, THROTTLER_ATTRIBUTES.channel, line.name);
      this.attributes.set(key, attributes);
    }
    return attributes;
  }
}
