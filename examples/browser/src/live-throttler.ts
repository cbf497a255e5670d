import { type AnyEventObject, createActor, fromCallback, type InspectionEvent } from 'xstate';
import { auditThrottler, type StrategyName, type ThrottlerAuditReport, throttlerMachine } from '../../../src/index.js';

/** One line of the audit. */
type RateAudit = ThrottlerAuditReport['rates'][number];

import { recordTimeline, type TimelineInput } from '../../../src/timeline/index.js';
import { LaneMetrics, type MetricLine } from './lane-metrics.js';

/** What one side of the page shows, read from the throttler's snapshot and its recording. */
export interface ThrottlerView {
  strategy: StrategyName;
  rates: readonly string[];
  state: 'idle' | 'active';
  paused: boolean;
  counts: { queued: number; delivered: number; dropped: number; rejected: number };
  /** Milliseconds until the throttler's one timer fires (`context.wakeAt`); undefined when none is pending. */
  wakeInMs: number | undefined;
  /** The numbers of the first waiting messages, oldest first. */
  firstWaiting: number[];
  /**
   * The throttler's own audit (auditThrottler) of each rate in force, since it was set: the fullest
   * window, and how many windows went over the limit. Kept as deliveries happen; reading it is O(rates).
   */
  audit: RateAudit[];
}

export interface LiveThrottlerOptions {
  strategy: StrategyName;
  rates: readonly string[];
  /** The Stately inspector, already wrapped in summarizeInspection; absent until the user opens it. */
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /** Called on every snapshot and emitted event, so the page draws the next frame. */
  onChange: () => void;
}

const SHOWN_WAITING = 24;
/** Warming-up needs a warm-up period; a few seconds makes its climb visible on the page. */
const WARMUP = '3s';

/**
 * One throttler actor on the page, its target (a sink: the page only watches what is delivered),
 * and a recording of its timeline. Messages are numbered `{ type: 'message', n }` in sending order.
 */
export class LiveThrottler {
  private static created = 0;
  /** Tells this throttler from the one it replaced. */
  readonly id = ++LiveThrottler.created;
  readonly strategy: StrategyName;
  private rateList: readonly string[];
  private readonly actor;
  private readonly target = createActor(fromCallback(() => {}));
  private recording;
  private sent = 0;
  private paused = false;
  /** Bumped whenever the recording gains events or restarts, so the page redraws the timeline only then. */
  private recordingVersion = 0;
  private readonly instruments: LaneMetrics;

  constructor({ strategy, rates, inspect, onChange }: LiveThrottlerOptions) {
    this.strategy = strategy;
    this.rateList = rates;
    this.target.start();
    this.actor = createActor(throttlerMachine, {
      input: {
        rate: [...rates],
        strategy,
        target: this.target,
        ...(strategy === 'warming-up' ? { warmup: WARMUP } : {}),
      },
      ...(inspect === undefined ? {} : { inspect }),
    });
    this.recording = recordTimeline(this.actor, { rate: [...rates] });
    this.actor.subscribe(() => onChange());
    this.actor.on('*', () => {
      this.recordingVersion += 1;
      onChange();
    });
    this.actor.start();
    this.instruments = new LaneMetrics(this.actor, `${strategy} #${this.id}`);
  }

  /** Its OpenTelemetry metrics (xstate-throttler/otel), collected now through the SDK. */
  metrics(): Promise<MetricLine[]> {
    return this.instruments.read();
  }

  get rates(): readonly string[] {
    return this.rateList;
  }

  get version(): number {
    return this.recordingVersion;
  }

  /** Queues `size` messages in one QUEUE_BATCH: one transition, as a burst should be sent. */
  burst(size: number): void {
    const messages: Array<{ message: AnyEventObject }> = [];
    for (let i = 0; i < size; i++) messages.push({ message: { type: 'message', n: ++this.sent } });
    this.actor.send({ type: 'QUEUE_BATCH', messages });
  }

  /**
   * Replaces the rates (SET_RATE: the throttler keeps its history, so lowering the limit opens no
   * burst) and starts a new recording, since a timeline is measured against one set of rates.
   */
  setRates(rates: readonly string[]): void {
    this.actor.send({ type: 'SET_RATE', rate: [...rates] });
    this.rateList = rates;
    this.recording.stop();
    this.recording = recordTimeline(this.actor, { rate: [...rates] });
    this.recordingVersion += 1;
  }

  pause(): void {
    this.paused = true;
    this.actor.send({ type: 'PAUSE' });
  }

  resume(): void {
    this.paused = false;
    this.actor.send({ type: 'RESUME' });
  }

  stop(): void {
    this.instruments.stop();
    this.recording.stop();
    this.actor.stop();
    this.target.stop();
  }

  /** Delivery times and costs since the recording began, for anyone who wants to count for themselves. */
  deliveries(): Array<{ at: number; cost: number }> {
    const list: Array<{ at: number; cost: number }> = [];
    // This page's rates name no dimensions: every cost is a number.
    for (const event of this.recording.events)
      if (event.type === 'delivered') list.push({ at: event.at, cost: event.cost as number });
    return list;
  }

  timeline(): TimelineInput {
    return { events: this.recording.events, rate: [...this.rateList], title: this.title() };
  }

  title(): string {
    return `${this.strategy}, ${this.rateList.join(' and ')}`;
  }

  view(): ThrottlerView {
    const { value, context } = this.actor.getSnapshot();
    const counts = { ...context.counts };
    // Nothing is dropped or rejected here (an unbounded queue, no channels, cost 1) and delivery is
    // FIFO, so the queue holds exactly the last `queued` messages sent.
    const firstWaiting: number[] = [];
    for (let n = this.sent - counts.queued + 1; n <= this.sent && firstWaiting.length < SHOWN_WAITING; n++) {
      firstWaiting.push(n);
    }
    return {
      strategy: this.strategy,
      rates: this.rateList,
      state: value,
      paused: this.paused,
      counts,
      // wakeAt is on the throttler's clock: performance.now(), since this page gives no `now`.
      wakeInMs: Number.isFinite(context.wakeAt) ? Math.max(0, context.wakeAt - performance.now()) : undefined,
      firstWaiting,
      audit: this.auditOfRatesInForce(),
    };
  }

  /** The audit's overall lines of the rates in force: the last ones (a SET_RATE's older rates come first). */
  private auditOfRatesInForce(): RateAudit[] {
    const overall = auditThrottler(this.actor).rates.filter((line) => line.scope === 'overall');
    return overall.slice(overall.length - this.rateList.length);
  }
}
