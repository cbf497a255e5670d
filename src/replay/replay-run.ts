/**
 * One configuration's replay: the real throttler (`throttlerMachine`) on its own virtual clock, fed the
 * recording's arrivals. Why its decisions are a real run's: docs/replay.md. Kept cheap per arrival, since
 * a recording may hold millions (bench/replay-scale.ts):
 *
 * - the message sent is the arrival's own record, so a delivery or a drop finds it without a lookup;
 * - deliveries are heard at the target (a callback actor: its clock reads the delivery's time), not as
 *   `delivered` events, so an arrival that passes straight through takes the machine's quiet path;
 * - with `sameInstant: 'batch'`, arrivals at one instant are handed over as one QUEUE_BATCH;
 * - errors made while it runs (a dropped message's ThrottlerExpiredError) take no stack trace.
 */
import { type AnyActorRef, createActor, fromCallback } from 'xstate';
import type { CommonOptions } from '../machine/index.js';
import { auditThrottler, throttlerMachine } from '../machine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { jsonConfiguration, type RecordedArrival, type RecordedOutcome } from './format.js';
import { type ReplayReport, ReportTally } from './report.js';
import { VirtualClock } from './virtual-clock.js';

/** A throttler's options to replay a recording through (the machine's, but its clock: the replay's). */
export interface ReplayConfiguration extends Omit<CommonOptions, 'now'> {
  /** The column's name in a comparison, and the report's. */
  name?: string | undefined;
  /**
   * What a recorded 429 does: `'pause'` (default) pauses the throttler for its Retry-After from the task's end,
   * as `serverLimits` does; `'ignore'` replays as if the server had said nothing.
   */
  serverAnswers?: 'pause' | 'ignore' | undefined;
}

/** One arrival's fate in a replay, in the order the throttler decided. */
export interface ReplayDecision {
  /** The arrival's place in the recording (0 for the first arrival) and its line. */
  arrival: number;
  line: number;
  t: number;
  channel: string | undefined;
  /** Delivered at `sent`, having waited `wait` ms... */
  sent?: number | undefined;
  wait?: number | undefined;
  /** ...or dropped while it waited, or refused as it came, for this reason. */
  dropped?: string | undefined;
  rejected?: string | undefined;
}

/** The message a replay queues: the arrival, with what its task's end needs. */
interface ArrivalMessage {
  readonly type: 'arrival';
  readonly arrival: number;
  readonly line: number;
  readonly t: number;
  readonly channel: string | undefined;
  readonly cost: RecordedArrival['cost'];
  readonly ran: number;
  readonly outcome: RecordedOutcome | undefined;
  readonly retryAfter: number | undefined;
}

/** An arrival as the QUEUE_BATCH entry (or the QUEUE) that carries it. */
interface Entry {
  message: ArrivalMessage;
  channel: string | undefined;
  cost: RecordedArrival['cost'];
  priority: number | undefined;
  deadline: number | undefined;
  maxWait: number | undefined;
}

const SERVER_ANSWERS: readonly unknown[] = ['pause', 'ignore', undefined];

/** Runs `step` with errors made without a stack trace (restored after, even if it throws). */
function withoutStacks<T>(step: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return step();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export class ReplayRun {
  private readonly clock = new VirtualClock();
  private readonly actor;
  private readonly target: AnyActorRef;
  private readonly tally = new ReportTally();
  private readonly settles: boolean;
  private readonly pauses: boolean;
  private pausedUntil = -Infinity;
  private invalidEvents = 0;
  private decided = 0;
  private arrived = 0;
  /** Arrivals at the latest instant not yet handed over (one QUEUE_BATCH once time moves on). */
  private batch: Entry[] = [];
  private batchAt = 0;

  constructor(
    private readonly configuration: ReplayConfiguration,
    private readonly name: string,
    private readonly onDecision: ((decision: ReplayDecision) => void) | undefined,
    private readonly batches: boolean,
  ) {
    const { name: _name, serverAnswers, ...options } = configuration;
    if (!SERVER_ANSWERS.includes(serverAnswers)) {
      throw new ThrottlerOptionError('serverAnswers', "'pause' or 'ignore'", serverAnswers);
    }
    this.pauses = serverAnswers !== 'ignore';
    this.settles = options.maxConcurrent !== undefined || options.countUntil === 'done';
    const delivered = (message: ArrivalMessage) => this.delivered(message);
    this.target = createActor(fromCallback(({ receive }) => receive(delivered as never))).start();
    const input = { ...options, now: this.clock.now, target: this.target };
    this.actor = createActor(throttlerMachine, { input, clock: this.clock });
    this.actor.on('dropped', (event) => this.removed(event.message as ArrivalMessage, 'dropped', event.reason));
    this.actor.on('rejected', (event) => this.removed(event.message as ArrivalMessage, 'rejected', event.reason));
    this.actor.on('invalidEvent', () => this.invalidEvents++);
    // A configuration the throttler refuses (its context threw) is thrown here, never started.
    const created = this.actor.getSnapshot();
    if (created.status === 'error') {
      this.target.stop();
      throw created.error;
    }
    this.actor.start();
  }

  /** An arrival: sent at its time, or (batches) held until time moves past its instant and sent with the others. */
  arrive(recorded: RecordedArrival, line: number): void {
    if (this.batch.length > 0 && (recorded.t !== this.batchAt || !this.batches)) this.handOver();
    this.batchAt = recorded.t;
    const { t, channel, cost, priority, deadline, maxWait } = recorded;
    const message: ArrivalMessage = {
      type: 'arrival',
      arrival: this.arrived++,
      line,
      t,
      channel,
      cost,
      ran: recorded.ran ?? 0,
      outcome: recorded.outcome,
      retryAfter: recorded.retryAfter,
    };
    this.tally.arrived(channel, t);
    this.batch.push({ message, channel, cost, priority, deadline, maxWait });
  }

  /** The held arrivals sent, after every timer due by their instant has fired. */
  private handOver(): void {
    const batch = this.batch;
    this.batch = [];
    withoutStacks(() => {
      this.clock.runUntil(this.batchAt);
      if (batch.length === 1) {
        const { message, channel, cost, priority, deadline, maxWait } = batch[0] as Entry;
        this.actor.send({ type: 'QUEUE', message, channel, cost, priority, deadline, maxWait });
      } else this.actor.send({ type: 'QUEUE_BATCH', messages: batch });
    });
  }

  private delivered(message: ArrivalMessage): void {
    const at = this.clock.now();
    const wait = at - message.t;
    this.decided++;
    this.tally.delivered(message.channel, wait, at);
    if (this.onDecision !== undefined) {
      const { arrival, line, t, channel } = message;
      this.onDecision({ arrival, line, t, channel, sent: at, wait });
    }
    const answers = this.pauses && message.outcome === '429' && message.retryAfter !== undefined;
    if (this.settles || answers) this.clock.setTimeout(() => this.ended(message), message.ran);
  }

  /** The task's end: its slot freed, and a 429's Retry-After applied as serverLimits would. */
  private ended(message: ArrivalMessage): void {
    if (this.settles) this.actor.send({ type: 'SETTLED', channel: message.channel, cost: message.cost });
    if (!this.pauses || message.outcome !== '429' || message.retryAfter === undefined) return;
    const until = this.clock.now() + message.retryAfter;
    // As serverLimits' gate: a pause only when it ends later than the one in force.
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.actor.send({ type: 'PAUSE', until });
  }

  private removed(message: ArrivalMessage, how: 'dropped' | 'rejected', reason: string): void {
    // A message the replay did not send (none: every one is an arrival) is not counted.
    if (message?.type !== 'arrival') return;
    this.decided++;
    this.tally.removed(message.channel, how, reason);
    const { arrival, line, t, channel } = message;
    this.onDecision?.({ arrival, line, t, channel, [how]: reason });
  }

  /** The last arrivals handed over, every timer left fired (the queue drained as it allows), then the report. */
  finish(): ReplayReport {
    if (this.batch.length > 0) this.handOver();
    withoutStacks(() => this.clock.runUntil(Infinity));
    const audit = auditThrottler(this.actor);
    this.actor.stop();
    this.target.stop();
    return {
      name: this.name,
      configuration: jsonConfiguration(this.configuration),
      ...this.tally.summary(),
      unfinished: this.arrived - this.decided,
      keys: this.tally.keyReports(),
      rates: audit.rates,
      windowsOver: audit.windowsOver,
      invalidEvents: this.invalidEvents,
    };
  }
}
