/**
 * One configuration's replay: the real throttler (`throttlerMachine`) on its own virtual clock, fed the
 * recording's arrivals. Why its decisions are a real run's: docs/replay.md. Kept cheap per arrival, since
 * a recording may hold millions (bench/replay-scale.ts):
 *
 * - the message sent is the arrival's own record, so a delivery or a drop finds it without a lookup;
 * - deliveries are heard at the target (its clock reads the delivery's time), not as `delivered` events,
 *   so an arrival that passes straight through takes the machine's quiet path; the target hands each one
 *   over as it is relayed (`listeningTarget`), with no actor step of its own per delivery;
 * - with `sameInstant: 'batch'`, arrivals at one instant are handed over as one QUEUE_BATCH;
 * - a fleet (`fleet`) runs a throttler per recorded process over one store (fleet.ts), one step at a time;
 * - errors made while it runs (a dropped message's ThrottlerExpiredError) take no stack trace.
 */
import { type Actor, type AnyActorRef, createActor, fromCallback } from 'xstate';
import type { CommonOptions } from '../machine/index.js';
import { auditThrottler, listeningTarget, type ThrottlerAuditReport, throttlerMachine } from '../machine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { auditEvery, type FleetOf, type FleetStore, fleetStore, storeAnswers } from './fleet.js';
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
  /**
   * Replays a fleet: each recorded `process` through a throttler of its own, all over the store this makes
   * on the replay's clock (`(clock) => createMemoryStore({ name: 'fleet', clock })`, xstate-throttler/store).
   * The report adds each process's share (`processes`) and takes its windows from the store's audit.
   */
  fleet?: FleetOf | undefined;
}

/** One arrival's fate in a replay, in the order the throttler decided. */
export interface ReplayDecision {
  /** The arrival's place in the recording (0 for the first arrival) and its line. */
  arrival: number;
  line: number;
  t: number;
  channel: string | undefined;
  /** Its recorded cost. */
  cost: RecordedArrival['cost'];
  /** When it was decided, on the replay's clock: `sent` for a delivery, the drop's or refusal's time otherwise. */
  at: number;
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
  readonly process: string | undefined;
  readonly arrival: number;
  readonly line: number;
  readonly t: number;
  readonly channel: string | undefined;
  readonly cost: RecordedArrival['cost'];
  readonly ran: number;
  readonly outcome: RecordedOutcome | undefined;
  readonly retryAfter: number | undefined;
}

/** An arrival as the QUEUE that carries it, or as its QUEUE_BATCH entry (the same object: `type` is not read there). */
interface Entry {
  readonly type: 'QUEUE';
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

/** One process's throttler and the target that hears its deliveries. */
interface Lane {
  readonly actor: Actor<typeof throttlerMachine>;
  readonly target: AnyActorRef;
}

export class ReplayRun {
  private readonly clock = new VirtualClock();
  private readonly options: Omit<ReplayConfiguration, 'name' | 'serverAnswers' | 'fleet'>;
  /** One throttler, or with a fleet one per process (by name; '' for arrivals without one). */
  private readonly lanes = new Map<string, Lane>();
  private readonly store: FleetStore | undefined;
  private readonly tally = new ReportTally();
  private readonly processTally = new ReportTally();
  private readonly settles: boolean;
  private readonly pauses: boolean;
  private readonly pausedUntil = new Map<string, number>();
  private invalidEvents = 0;
  private decided = 0;
  private arrived = 0;
  /** Arrivals at the latest instant not yet handed over (one QUEUE_BATCH once time moves on). */
  private batch: Entry[] = [];
  private batchAt = 0;
  private fleetAudit: Promise<ThrottlerAuditReport> | undefined;
  private auditedAt = 0;

  constructor(
    private readonly configuration: ReplayConfiguration,
    private readonly name: string,
    private readonly onDecision: ((decision: ReplayDecision) => void) | undefined,
    private readonly batches: boolean,
  ) {
    const { name: _name, serverAnswers, fleet, ...options } = configuration;
    if (!SERVER_ANSWERS.includes(serverAnswers)) {
      throw new ThrottlerOptionError('serverAnswers', "'pause' or 'ignore'", serverAnswers);
    }
    this.options = options;
    this.pauses = serverAnswers !== 'ignore';
    this.settles = options.maxConcurrent !== undefined || options.countUntil === 'done';
    this.store = fleet === undefined ? undefined : fleetStore(fleet, this.clock.now);
    // One throttler now, so that a configuration it refuses is thrown before any arrival; a fleet's first too.
    this.laneOf(undefined);
    if (this.store?.audit !== undefined) this.fleetAudit = this.store.audit();
  }

  /** The throttler of an arrival's process (the one throttler, without a fleet), started on first use. */
  private laneOf(process: string | undefined): Lane {
    const name = this.store === undefined ? '' : (process ?? '');
    const known = this.lanes.get(name);
    if (known !== undefined) return known;
    const delivered = (message: ArrivalMessage) => this.delivered(message);
    // Deliveries heard as they are relayed, without a callback actor's mailbox and snapshot each.
    const target = listeningTarget(createActor(fromCallback(() => undefined)).start(), delivered as never);
    const input = { ...this.options, now: this.clock.now, target, ...(this.store && { store: this.store }) };
    const actor = createActor(throttlerMachine, { input, clock: this.clock });
    actor.on('dropped', (event) => this.removed(event.message as ArrivalMessage, 'dropped', event.reason));
    actor.on('rejected', (event) => this.removed(event.message as ArrivalMessage, 'rejected', event.reason));
    actor.on('invalidEvent', () => this.invalidEvents++);
    // A configuration the throttler refuses (its context threw) is thrown here, never started.
    const created = actor.getSnapshot();
    if (created.status === 'error') {
      target.stop();
      throw created.error;
    }
    actor.start();
    const lane = { actor, target };
    this.lanes.set(name, lane);
    return lane;
  }

  /**
   * An arrival: sent at its time, or (batches) held until time moves past its instant and sent with the
   * others; with a fleet, a promise of its step (the store's answers landed).
   */
  arrive(recorded: RecordedArrival, line: number): Promise<void> | undefined {
    if (this.batch.length > 0 && (recorded.t !== this.batchAt || !this.batches)) this.handOver();
    this.batchAt = recorded.t;
    const { t, channel, cost, priority, deadline, maxWait } = recorded;
    const message: ArrivalMessage = {
      type: 'arrival',
      process: recorded.process,
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
    const entry: Entry = { type: 'QUEUE', message, channel, cost, priority, deadline, maxWait };
    if (this.store === undefined) {
      this.batch.push(entry);
      return undefined;
    }
    this.processTally.arrived(message.process, t);
    return this.stepFleet(entry);
  }

  /** The held arrivals sent, after every timer due by their instant has fired. */
  private handOver(): void {
    const batch = this.batch;
    this.batch = [];
    const { actor } = this.laneOf(undefined);
    withoutStacks(() => {
      this.clock.runUntil(this.batchAt);
      actor.send(batch.length === 1 ? (batch[0] as Entry) : { type: 'QUEUE_BATCH', messages: batch });
    });
  }

  /** A fleet's arrival: every timer before it fired one at a time, each answer of the store landed. */
  private async stepFleet(entry: Entry): Promise<void> {
    await this.fleetUntil(entry.message.t);
    const { actor } = withoutStacks(() => this.laneOf(entry.message.process));
    withoutStacks(() => actor.send(entry));
    await storeAnswers();
  }

  /** Fires a fleet's timers due by `time`, one at a time, letting the store answer after each; reads its audit. */
  private async fleetUntil(time: number, untilDecided = false): Promise<void> {
    while (this.clock.nextAt() <= time && !(untilDecided && this.decided === this.arrived)) {
      withoutStacks(() => this.clock.runUntil(this.clock.nextAt(), 1));
      await storeAnswers();
      if (this.fleetAudit !== undefined && this.clock.now() - this.auditedAt >= auditEvery(this.options.rate)) {
        this.auditedAt = this.clock.now();
        this.fleetAudit = this.store?.audit?.();
      }
    }
    if (time !== Infinity) this.clock.runUntil(time);
  }
  private delivered(message: ArrivalMessage): void {
    const at = this.clock.now();
    const wait = at - message.t;
    this.decided++;
    this.tally.delivered(message.channel, wait, at);
    if (this.store !== undefined) this.processTally.delivered(message.process, wait, at);
    if (this.onDecision !== undefined) {
      const { arrival, line, t, channel, cost } = message;
      this.onDecision({ arrival, line, t, channel, cost, at, sent: at, wait });
    }
    const answers = this.pauses && message.outcome === '429' && message.retryAfter !== undefined;
    if (this.settles || answers) this.clock.setTimeout(() => this.ended(message), message.ran);
  }

  /** The task's end: its slot freed, and a 429's Retry-After applied as serverLimits would. */
  private ended(message: ArrivalMessage): void {
    const { actor } = this.laneOf(message.process);
    if (this.settles) actor.send({ type: 'SETTLED', channel: message.channel, cost: message.cost });
    if (!this.pauses || message.outcome !== '429' || message.retryAfter === undefined) return;
    const until = this.clock.now() + message.retryAfter;
    // As serverLimits' gate (one per process): a pause only when it ends later than the one in force.
    const process = this.store === undefined ? '' : (message.process ?? '');
    if (until <= (this.pausedUntil.get(process) ?? -Infinity)) return;
    this.pausedUntil.set(process, until);
    actor.send({ type: 'PAUSE', until });
  }

  private removed(message: ArrivalMessage, how: 'dropped' | 'rejected', reason: string): void {
    // A message the replay did not send (none: every one is an arrival) is not counted.
    if (message?.type !== 'arrival') return;
    this.decided++;
    this.tally.removed(message.channel, how, reason);
    if (this.store !== undefined) this.processTally.removed(message.process, how, reason);
    if (this.onDecision === undefined) return;
    const { arrival, line, t, channel, cost } = message;
    this.onDecision({ arrival, line, t, channel, cost, at: this.clock.now(), [how]: reason });
  }

  /** The last arrivals handed over, every timer left fired (the queue drained as it allows), then the report. */
  async finish(): Promise<ReplayReport> {
    if (this.batch.length > 0) this.handOver();
    if (this.store === undefined) withoutStacks(() => this.clock.runUntil(Infinity));
    else await this.fleetUntil(Infinity, true);
    const audit = await this.windowsAudit();
    for (const { actor, target } of this.lanes.values()) {
      actor.stop();
      target.stop();
    }
    return {
      name: this.name,
      configuration: jsonConfiguration(this.configuration),
      ...this.tally.summary(),
      unfinished: this.arrived - this.decided,
      keys: this.tally.keyReports(),
      ...(this.store === undefined ? {} : { processes: this.processTally.keyReports() }),
      rates: audit.rates,
      windowsOver: audit.windowsOver,
      invalidEvents: this.invalidEvents,
    };
  }

  /** The audit of every window: the throttler's, or a fleet's from its store (read once its last grants settled). */
  private async windowsAudit(): Promise<Pick<ThrottlerAuditReport, 'rates' | 'windowsOver'>> {
    if (this.store === undefined) return auditThrottler(this.laneOf(undefined).actor);
    if (this.fleetAudit === undefined) return { rates: [], windowsOver: 0 };
    await this.fleetAudit;
    // Past every window of the last grant (and its grace), so the store's audit counts them all.
    const settled = this.clock.now() + 2 * auditEvery(this.options.rate) * 2 + 10_000;
    for (let at = this.clock.now(); at <= settled; at += auditEvery(this.options.rate)) {
      this.clock.runUntil(at);
      await this.store.audit?.();
    }
    this.clock.runUntil(settled);
    return (await this.store.audit?.()) ?? { rates: [], windowsOver: 0 };
  }
}
