/**
 * A recording run through the real throttler (`throttlerMachine`) on a virtual clock (virtual-clock.ts):
 * each arrival sent as a QUEUE at its recorded time, after every timer due by then has fired; each delivery's
 * task ended (SETTLED, with `maxConcurrent` or `countUntil: 'done'`) at its recorded run time after it, and a
 * recorded 429 applied there as a PAUSE for its Retry-After. Why its decisions are a real run's: docs/replay.md.
 * Several configurations replay one reading of the recording side by side (`compare`), so a recording
 * streamed from a file is read once, and memory is bounded by the queues, not by the recording.
 */
import { type AnyActorRef, createActor, fromCallback } from 'xstate';
import type { CommonOptions } from '../machine/index.js';
import { auditThrottler, throttlerMachine } from '../machine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { jsonConfiguration, type RecordedArrival, type RecordedOutcome } from './format.js';
import { type RecordingSource, readRecording } from './read.js';
import { comparisonTable, type ReplayReport, ReportTally } from './report.js';
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

export interface ReplayOptions {
  /** Hears each decision as it is made (the replay keeps none of them). */
  onDecision?: ((decision: ReplayDecision, configuration: number) => void) | undefined;
}

/** What `compare` returns: a report per configuration, in order, and the table of their differences. */
export interface Comparison {
  reports: ReplayReport[];
  /** The reports side by side, as markdown; figures that differ from the first configuration's in bold. */
  table: string;
}

interface Waiting {
  arrival: number;
  line: number;
  t: number;
  channel: string | undefined;
  cost: RecordedArrival['cost'];
  ran: number;
  outcome: RecordedOutcome | undefined;
  retryAfter: number | undefined;
}

interface ArrivalMessage {
  type: 'arrival';
  arrival: number;
}

const SERVER_ANSWERS: readonly unknown[] = ['pause', 'ignore', undefined];

/** One configuration's replay: the throttler, its virtual clock, what waits and what was counted. */
class ReplayRun {
  private readonly clock = new VirtualClock();
  private readonly actor;
  private readonly target: AnyActorRef;
  private readonly waiting = new Map<number, Waiting>();
  private readonly tally = new ReportTally();
  private readonly settles: boolean;
  private readonly pauses: boolean;
  private pausedUntil = -Infinity;
  private invalidEvents = 0;

  constructor(
    private readonly configuration: ReplayConfiguration,
    private readonly name: string,
    private readonly onDecision: ((decision: ReplayDecision) => void) | undefined,
  ) {
    const { name: _name, serverAnswers, ...options } = configuration;
    if (!SERVER_ANSWERS.includes(serverAnswers)) {
      throw new ThrottlerOptionError('serverAnswers', "'pause' or 'ignore'", serverAnswers);
    }
    this.pauses = serverAnswers !== 'ignore';
    this.settles = options.maxConcurrent !== undefined || options.countUntil === 'done';
    this.target = createActor(fromCallback(() => undefined)).start();
    const input = { ...options, now: this.clock.now, target: this.target };
    this.actor = createActor(throttlerMachine, { input, clock: this.clock });
    this.actor.on('delivered', (event) => this.delivered((event.message as ArrivalMessage).arrival, event.at));
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

  arrive(recorded: RecordedArrival, arrival: number, line: number): void {
    this.clock.runUntil(recorded.t);
    const waiting: Waiting = {
      arrival,
      line,
      t: recorded.t,
      channel: recorded.channel,
      cost: recorded.cost,
      ran: recorded.ran ?? 0,
      outcome: recorded.outcome,
      retryAfter: recorded.retryAfter,
    };
    this.waiting.set(arrival, waiting);
    this.tally.arrived(recorded.channel, recorded.t);
    const message: ArrivalMessage = { type: 'arrival', arrival };
    const { channel, cost, priority, deadline, maxWait } = recorded;
    this.actor.send({ type: 'QUEUE', message, channel, cost, priority, deadline, maxWait });
  }

  private delivered(arrival: number, at: number): void {
    const waiting = this.waiting.get(arrival);
    if (waiting === undefined) return;
    this.waiting.delete(arrival);
    const wait = at - waiting.t;
    this.tally.delivered(waiting.channel, wait, at);
    this.onDecision?.({ arrival, line: waiting.line, t: waiting.t, channel: waiting.channel, sent: at, wait });
    const answers = this.pauses && waiting.outcome === '429' && waiting.retryAfter !== undefined;
    if (this.settles || answers) this.clock.setTimeout(() => this.ended(waiting), waiting.ran);
  }

  /** The task's end: its slot freed, and a 429's Retry-After applied as serverLimits would. */
  private ended(waiting: Waiting): void {
    if (this.settles) this.actor.send({ type: 'SETTLED', channel: waiting.channel, cost: waiting.cost });
    if (!this.pauses || waiting.outcome !== '429' || waiting.retryAfter === undefined) return;
    const until = this.clock.now() + waiting.retryAfter;
    // As serverLimits' gate: a pause only when it ends later than the one in force.
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.actor.send({ type: 'PAUSE', until });
  }

  private removed(message: ArrivalMessage, how: 'dropped' | 'rejected', reason: string): void {
    const waiting = this.waiting.get(message.arrival);
    if (waiting === undefined) return;
    this.waiting.delete(message.arrival);
    this.tally.removed(waiting.channel, how, reason);
    const { arrival, line, t, channel } = waiting;
    this.onDecision?.({ arrival, line, t, channel, [how]: reason });
  }

  /** Every timer left fired (the queue drained as the configuration allows), then the report. */
  finish(): ReplayReport {
    this.clock.runUntil(Infinity);
    const audit = auditThrottler(this.actor);
    this.actor.stop();
    this.target.stop();
    return {
      name: this.name,
      configuration: jsonConfiguration(this.configuration),
      ...this.tally.summary(),
      unfinished: this.waiting.size,
      keys: this.tally.keyReports(),
      rates: audit.rates,
      windowsOver: audit.windowsOver,
      invalidEvents: this.invalidEvents,
    };
  }
}

/** Reads the recording once, feeding every arrival to one replay per configuration (undefined: as recorded). */
async function replayAll(
  recording: RecordingSource,
  configurations: readonly (ReplayConfiguration | undefined)[],
  options: ReplayOptions,
): Promise<ReplayReport[]> {
  let runs: ReplayRun[] = [];
  let arrival = 0;
  for await (const item of readRecording(recording)) {
    if (item.kind === 'header') {
      runs = configurations.map((given, at) => {
        const configuration = given ?? (item.header.configuration as unknown as ReplayConfiguration);
        const name = given?.name ?? (given === undefined ? 'as recorded' : `#${at + 1}`);
        const onDecision = options.onDecision;
        return new ReplayRun(configuration, name, onDecision && ((decision) => onDecision(decision, at)));
      });
      continue;
    }
    for (const run of runs) run.arrive(item.arrival, arrival, item.line);
    arrival++;
  }
  return runs.map((run) => run.finish());
}

/**
 * Replays a recording through `configuration` (default: the one its header records) in virtual time, and
 * reports per key and overall: waits, what was dropped or refused and why, throughput, and the audit of
 * every window. Throws a RecordingFormatError at the first wrong line, a ThrottlerOptionError for a wrong
 * option.
 */
export async function replay(
  recording: RecordingSource,
  configuration?: ReplayConfiguration,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const [report] = await replayAll(recording, [configuration], options);
  return report as ReplayReport;
}

/**
 * Replays one recording through each configuration, reading it once (a file is streamed once, whatever
 * the number of configurations), and sets the reports side by side.
 */
export async function compare(
  recording: RecordingSource,
  configurations: readonly ReplayConfiguration[],
  options: ReplayOptions = {},
): Promise<Comparison> {
  if (!Array.isArray(configurations) || configurations.length === 0) {
    throw new ThrottlerOptionError('configurations', 'a non-empty array of configurations', configurations);
  }
  const reports = await replayAll(recording, configurations, options);
  return { reports, table: comparisonTable(reports) };
}
