/**
 * `instrumentThrottler`: OpenTelemetry instruments over one throttler, read at collection wherever
 * the throttler already counts (deliveries, the queue, deliveries in flight, each rate's window, a
 * store's calls, the messages it ever queued), and fed by its emitted events for the rest (`dequeued`,
 * `dropped`, `rejected`, the store's). Nothing listens to `delivered` or `queued`, so a promise API
 * throttler keeps starting tasks inside `schedule` and a QUEUE that only queues keeps the machine's quiet
 * path; a message that never waits costs nothing here.
 */
import type { Attributes, BatchObservableResult, Observable } from '@opentelemetry/api';
import type { ThrottlerEmitted } from '../machine/index.js';
import { formatRate } from '../rate/index.js';
import { AuditSeries } from './audit-series.js';
import { MessageTallies } from './message-tallies.js';
import { THROTTLER_ATTRIBUTES, THROTTLER_METRICS, TIME_IN_QUEUE_BUCKETS } from './names.js';
import { type CheckedOptions, checkOptions, define, type InstrumentOptions } from './options.js';
import { StoreMetrics } from './store-metrics.js';
import { type ThrottlerView, throttlerView } from './throttler-view.js';

/** What `instrumentThrottler` returns. */
export interface ThrottlerInstrumentation {
  /**
   * Removes every listener and callback it added: the instruments report nothing new of this throttler
   * (an SDK may go on exporting a cumulative series' last value). Calling it again does nothing.
   */
  stop(): void;
}

type Dequeued = Extract<ThrottlerEmitted, { type: 'dequeued' }>;

/**
 * Instruments a throttler: an actor of `throttlerMachine` (or one restored) or a `createThrottler()`
 * throttler, with or without a store. Throws a ThrottlerOptionError naming the field for a bad option,
 * or `throttler` for anything else. Instrument each throttler once per meter: a second instrumentation
 * under the same name reports the same series again, and its histogram times every wait a second time.
 */
export function instrumentThrottler(throttlerOrActor: unknown, options: InstrumentOptions): ThrottlerInstrumentation {
  const view = throttlerView(throttlerOrActor);
  const checked = checkOptions(options);
  const { meter, base } = checked;
  const m = THROTTLER_METRICS;
  const messages = meter.createObservableCounter(m.messages.name, {
    unit: m.messages.unit,
    description: 'Messages by result: delivered, queued (had to wait), dropped, expired, rejected, cancelled.',
  });
  const queued = meter.createObservableUpDownCounter(m.queuedMessages.name, {
    unit: m.queuedMessages.unit,
    description: 'Messages waiting in the queue.',
  });
  const active = meter.createObservableUpDownCounter(m.activeDeliveries.name, {
    unit: m.activeDeliveries.unit,
    description: 'Deliveries not yet settled (with maxConcurrent or countUntil done).',
  });
  const paused = meter.createObservableGauge(m.paused.name, {
    unit: m.paused.unit,
    description: 'Whether a pause is in force: 1 while the throttler starts nothing for a PAUSE, else 0.',
  });
  const utilization = meter.createObservableGauge(m.windowUtilization.name, {
    unit: m.windowUtilization.unit,
    description: "What a rate's current window holds, as a fraction of its limit.",
  });
  const timeInQueue = meter.createHistogram(m.timeInQueue.name, {
    unit: m.timeInQueue.unit,
    description: 'How long a message that had to wait was queued before it was delivered.',
    advice: { explicitBucketBoundaries: TIME_IN_QUEUE_BUCKETS },
  });
  const tallies = new MessageTallies(base, view.counts().delivered, view.queuedTotal());
  const store = view.traffic() === undefined ? undefined : new StoreMetrics(meter, base, view);
  const windows = new WindowSeries(checked, view);
  const audit = new AuditSeries(meter, checked, view);
  const observables: Observable[] = [
    messages,
    queued,
    active,
    paused,
    utilization,
    ...audit.observables,
    ...(store?.observables ?? []),
  ];
  const observe = (result: BatchObservableResult): void => {
    const counts = view.counts();
    tallies.observe(result, messages, counts.delivered, view.queuedTotal());
    result.observe(queued, counts.queued, base);
    result.observe(active, view.inFlight(), base);
    result.observe(paused, view.paused() ? 1 : 0, base);
    windows.observe(result, utilization);
    audit.observe(result);
    store?.observe(result);
  };
  meter.addBatchObservableCallback(observe, observables);
  const { actor } = view;
  const subscriptions = [
    actor.on('dequeued', (event) => {
      const { at, queuedAt } = event as Dequeued;
      timeInQueue.record((at - queuedAt) / 1000, base);
    }),
    actor.on('dropped', (event) => tallies.dropped(event as Extract<ThrottlerEmitted, { type: 'dropped' }>)),
    actor.on('rejected', (event) => tallies.rejected(event as Extract<ThrottlerEmitted, { type: 'rejected' }>)),
    ...(store?.listen(actor) ?? []),
  ];
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      for (const subscription of subscriptions) subscription.unsubscribe();
      meter.removeBatchObservableCallback(observe, observables);
    },
  };
}

/** Attribute sets kept for the utilisation series; more are built again as they are needed. */
const MAX_CACHED = 1000;

/** The utilisation series: one per overall rate, and per rate of each channel asked for; attributes built once. */
class WindowSeries {
  private readonly attributes = new Map<string, Attributes>();

  constructor(
    private readonly options: CheckedOptions,
    private readonly view: ThrottlerView,
  ) {}

  observe(result: BatchObservableResult, instrument: Observable): void {
    this.observeScope(result, instrument, undefined);
    for (const channel of this.options.channels) this.observeScope(result, instrument, channel);
  }

  private observeScope(result: BatchObservableResult, instrument: Observable, channel: string | undefined): void {
    for (const { rate, held } of this.view.windowUse(channel)) {
      result.observe(instrument, held / rate.limit, this.attributesOf(channel, formatRate(rate), rate.dimension));
    }
  }

  private attributesOf(channel: string | undefined, rate: string, dimension: string | undefined): Attributes {
    // JSON: a name with spaces cannot make two series share a key.
    const key = JSON.stringify([rate, channel ?? null, dimension ?? null]);
    let attributes = this.attributes.get(key);
    if (attributes === undefined) {
      // Rates set again and again (a server's answers) would make new keys without end: start afresh.
      if (this.attributes.size >= MAX_CACHED) this.attributes.clear();
      attributes = { ...this.options.base };
      define(attributes, THROTTLER_ATTRIBUTES.rate, rate);
      if (dimension !== undefined) define(attributes, THROTTLER_ATTRIBUTES.dimension, dimension);
      if (channel !== undefined) define(attributes, THROTTLER_ATTRIBUTES.channel, channel);
      this.attributes.set(key, attributes);
    }
    return attributes;
  }
}
