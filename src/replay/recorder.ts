/**
 * Recorders: what reaches a throttler written as a recording (format.ts), without changing what it decides.
 * `recordThrottler` records a `createThrottler()` throttler's tasks through its own `schedule`, which knows
 * each task's start, run time and end; `recordActor` records a machine actor from what it already tells
 * (the QUEUE events it receives, seen by inspection, and its `delivered` / `dropped` / `rejected` events),
 * and a task's end where the app reports it (`finished`). Both hold only arrivals not yet complete (arrival-log.ts).
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { parseDuration, ThrottlerOptionError } from '../rate/index.js';
import { ArrivalColumns, type ColumnFields } from './arrival-columns.js';
import {
  ArrivalLog,
  checkMaxPending,
  checkSink,
  joinsLines,
  type LogEntry,
  type RecordingSink,
} from './arrival-log.js';
import {
  jsonConfiguration,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordedArrival,
  type RecordingHeader,
  type TaskEnd,
} from './format.js';
import { defaultOutcome, type OutcomeReader, reasonOfFailure } from './outcome.js';

/** What both recorders take. */
export interface RecorderOptions {
  /**
   * Where the lines go: a function handed each line (with its newline), or a writable (`createWriteStream(path)`),
   * which `recordThrottler` hands the lines at hand together, as one text of about 64 KiB.
   */
  to: RecordingSink;
  /** The options the throttler was created with, for the header (what JSON can hold of them): a replay's default. */
  configuration: object;
  /** How a task's end is read: default, a value or error with `status` 429 is `'429'` with its Retry-After. */
  outcome?: OutcomeReader | undefined;
  /** Arrivals held for their fate at most (default 10,000); past it the oldest is written with what is known. */
  maxPending?: number | undefined;
  /**
   * This process's name in a fleet, written on every line (`process`), so that the recordings of a store
   * throttler's processes merge into one (`mergeRecordings`) and replay as one fleet (`fleet`).
   */
  process?: string | undefined;
}

/** A recording under way. */
export interface Recording {
  /** Arrivals recorded so far (written or held). */
  readonly arrivals: number;
  /** Writes every arrival held, with what is known of it, and stops recording. */
  close(): void;
}

/** The promise API's throttler as the recorder uses it: its schedule, its events, and its actor's clock. */
export interface RecordableThrottler {
  schedule(task: (context: any) => unknown, options?: any): Promise<unknown>;
  on(event: 'dropped' | 'rejected', handler: (error: Error, id: string | number | undefined) => void): void;
  off(event: 'dropped' | 'rejected', handler: (error: Error, id: string | number | undefined) => void): void;
  readonly actor: AnyActorRef;
}

/** `recordThrottler`'s answer: schedule through it, and each task is recorded. */
export interface ThrottlerRecording<Schedule = RecordableThrottler['schedule']> extends Recording {
  /** The throttler's `schedule`, recording the task: its arrival, its start, how long it ran and how it ended. */
  schedule: Schedule;
}

type Task = (context: unknown) => unknown;

/** `recordActor`'s answer. */
export interface ActorRecording extends Recording {
  /**
   * Says that `message`'s task ended now, and how: its run time is counted from its delivery. Only with
   * `awaitEnds: true`; a message not delivered, or told twice, is ignored.
   */
  finished(message: object, end: TaskEnd): void;
}

/** The clock a throttler decides on: its context's `now` (the machine's, or the promise API's actor's). */
function clockOf(actor: unknown, option: string): () => number {
  const now = (actor as AnyActorRef | undefined)?.getSnapshot?.()?.context?.now;
  if (typeof now !== 'function') {
    throw new ThrottlerOptionError(option, 'a throttler (a createThrottler() throttler, or a throttler actor)', actor);
  }
  return now as () => number;
}

interface Start {
  write: (line: string) => void;
  maxPending: number;
  header: RecordingHeader;
  now: () => number;
  startedAt: number;
  readOutcome: OutcomeReader;
  process: string | undefined;
}

function start(options: RecorderOptions, now: () => number): Start {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object { to, configuration }', options);
  }
  const write = checkSink(options.to);
  if (typeof options.configuration !== 'object' || options.configuration === null) {
    throw new ThrottlerOptionError('configuration', "the throttler's options (an object)", options.configuration);
  }
  if (options.outcome !== undefined && typeof options.outcome !== 'function') {
    throw new ThrottlerOptionError(
      'outcome',
      'a function (value, error, failed) => { outcome, retryAfter? }',
      options.outcome,
    );
  }
  if (options.process !== undefined && (typeof options.process !== 'string' || options.process === '')) {
    throw new ThrottlerOptionError('process', "a non-empty string (this process's name in a fleet)", options.process);
  }
  const startedAt = now();
  const header = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    configuration: jsonConfiguration(options.configuration),
    clock: 'the throttler’s now',
    startedAt,
    wallClock: new Date().toISOString(),
  } as const;
  const maxPending = checkMaxPending(options.maxPending);
  return {
    write,
    maxPending,
    header,
    now,
    startedAt,
    readOutcome: options.outcome ?? defaultOutcome,
    process: options.process,
  };
}

/**
 * A time as a recording holds it: to the microsecond, finer than any decision turns on (a wait below a
 * microsecond counts as none), and a third of the cost of writing the clock's every digit.
 */
function toMicroseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** What a QUEUE (or a task's options) says of an arrival, as the recording holds it. */
function arrivalOf(fields: Record<string, unknown>, t: number, recording: Start): RecordedArrival {
  const { startedAt, process } = recording;
  const { cost, channel, priority, deadline, maxWait } = fields;
  let wait: number | undefined;
  try {
    // A number as it is (the machine takes 0: expire unless sent at once); a string as a duration.
    wait = typeof maxWait === 'string' ? parseDuration(maxWait, 'maxWait') : (maxWait as number | undefined);
  } catch {
    wait = undefined; // refused by the throttler as it arrives: recorded as rejected
  }
  return {
    t,
    cost: cost as RecordedArrival['cost'],
    channel: typeof channel === 'string' ? channel : undefined,
    priority: priority as number | undefined,
    deadline:
      typeof deadline === 'number' && Number.isFinite(deadline) ? toMicroseconds(deadline - startedAt) : undefined,
    maxWait: typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 ? wait : undefined,
    process,
  };
}

/** The task's end (`recordActor`), as its run time from its first start and its outcome. */
function ended(recording: Start, entry: LogEntry, end: TaskEnd): void {
  const arrival = entry.arrival;
  if (arrival.sent === undefined) return;
  arrival.ran = toMicroseconds(recording.now() - recording.startedAt - arrival.sent);
  arrival.outcome = end.outcome;
  if (end.outcome === '429' && end.retryAfter !== undefined) arrival.retryAfter = end.retryAfter;
}

/** `recordThrottler`'s recording: its columns, and one ColumnFields reused for every arrival. */
interface ColumnRecording extends Start {
  columns: ArrivalColumns;
  fields: ColumnFields;
  /** The arrival whose `schedule` call is under way (-1: none), and its time: a task started inside it started then. */
  scheduling: number;
  arrivedAt: number;
}

/** The task's end in the columns: its run time from its first start, and its outcome; with `complete`, its last news. */
function endedAt(recording: ColumnRecording, index: number, end: TaskEnd | undefined, complete: boolean): void {
  const { columns, now, startedAt } = recording;
  const sent = columns.sentAt(index);
  if (Number.isNaN(sent)) return;
  const ran = toMicroseconds(now() - startedAt - sent);
  columns.ended(index, ran, end === undefined ? 'ok' : end.outcome, end?.retryAfter);
  if (complete) columns.complete(index);
}

/** How a task that returned `value` ended: the default reader's 'ok' for anything but an object, without a call. */
function returned(recording: ColumnRecording, value: unknown): TaskEnd | undefined {
  const plain = recording.readOutcome === defaultOutcome && (typeof value !== 'object' || value === null);
  return plain ? undefined : recording.readOutcome(value, undefined, false);
}

/**
 * The task as the throttler runs it, recording its start, its run time and its end; as synchronous as the task.
 * A task that starts inside its own `schedule` call (the promise API's lease: nothing waits and the rate
 * allows it) started at its arrival's reading, so its start reads no clock of its own.
 */
function recordedRun(task: Task, recording: ColumnRecording, index: number, endsOnce: boolean): Task {
  return (context) => {
    const { now, startedAt, readOutcome, columns } = recording;
    const sent = recording.scheduling === index ? recording.arrivedAt : toMicroseconds(now() - startedAt);
    columns.started(index, sent);
    let result: unknown;
    try {
      result = task(context);
    } catch (error) {
      endedAt(recording, index, readOutcome(undefined, error, true), endsOnce);
      throw error;
    }
    if (typeof (result as PromiseLike<unknown> | null)?.then !== 'function') {
      const end = returned(recording, result);
      // The common case in one call: ran from this start, ended 'ok', complete.
      const ok =
        end === undefined && endsOnce && columns.endedOk(index, sent, toMicroseconds(now() - startedAt - sent));
      if (!ok) endedAt(recording, index, end, endsOnce);
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        endedAt(recording, index, returned(recording, value), endsOnce);
        return value;
      },
      (error: unknown) => {
        endedAt(recording, index, readOutcome(undefined, error, true), endsOnce);
        throw error;
      },
    );
  };
}

/**
 * A task's options as numbers in `fields` (NaN or -1: absent), as arrivalOf reads them; false when one is
 * not a number the columns hold (a cost map, a duration as a string, ...): that arrival is kept as an object.
 */
function columnFields(options: Record<string, unknown>, recording: ColumnRecording): boolean {
  const { cost, channel, priority, deadline, maxWait } = options;
  if (cost !== undefined && (typeof cost !== 'number' || Number.isNaN(cost))) return false;
  if (
    priority !== undefined &&
    !(Number.isInteger(priority) && (priority as number) >= 0 && (priority as number) <= 127)
  )
    return false;
  if (maxWait !== undefined && typeof maxWait !== 'number') return false;
  const fields = recording.fields;
  fields.cost = cost ?? Number.NaN;
  fields.channel = typeof channel === 'string' ? channel : undefined;
  fields.priority = (priority as number | undefined) ?? -1;
  fields.deadline =
    typeof deadline === 'number' && Number.isFinite(deadline)
      ? toMicroseconds(deadline - recording.startedAt)
      : Number.NaN;
  fields.maxWait = typeof maxWait === 'number' && Number.isFinite(maxWait) && maxWait >= 0 ? maxWait : Number.NaN;
  return true;
}

/** An arrival opened in the columns: as numbers, or as its object where they cannot hold it. */
function openArrival(recording: ColumnRecording, options: object | undefined): number {
  const t = toMicroseconds(recording.now() - recording.startedAt);
  recording.arrivedAt = t;
  const { columns, fields } = recording;
  if (options === undefined) {
    fields.t = t;
    fields.cost = fields.deadline = fields.maxWait = Number.NaN;
    fields.channel = undefined;
    fields.priority = -1;
    return columns.open(fields);
  }
  const given = options as Record<string, unknown>;
  if (!columnFields(given, recording)) return columns.openObject(arrivalOf(given, t, recording));
  fields.t = t;
  return columns.open(fields);
}

/**
 * Records a `createThrottler()` throttler's traffic: schedule tasks through the answer's `schedule` (the
 * throttler's own, with the task wrapped to read its start and end). Tasks scheduled on the throttler
 * directly are not recorded. A task with `retry` is recorded as one arrival: its first start, its last end.
 * Each arrival is kept as numbers in typed arrays and its line formatted later (arrival-columns.ts).
 */
export function recordThrottler<T extends RecordableThrottler>(
  throttler: T,
  options: RecorderOptions,
): ThrottlerRecording<T['schedule']> {
  const started = start(options, clockOf(throttler?.actor, 'throttler'));
  const joins = joinsLines(options.to);
  const columns = new ArrivalColumns(started.write, started.maxPending, started.header, started.process, joins);
  const fields: ColumnFields = { t: 0, cost: 0, channel: undefined, priority: -1, deadline: 0, maxWait: 0 };
  const recording: ColumnRecording = { ...started, columns, fields, scheduling: -1, arrivedAt: 0 };
  const failures = new WeakMap<object, 'dropped' | 'rejected'>();
  const onDropped = (error: Error) => failures.set(error, 'dropped');
  const onRejected = (error: Error) => failures.set(error, 'rejected');
  throttler.on('dropped', onDropped);
  throttler.on('rejected', onRejected);
  /** A task's promise settled: complete, and if it never ran, dropped or refused as its error says. */
  const settle = (index: number, error: unknown) => {
    if (columns.isComplete(index)) return;
    if (error !== undefined && Number.isNaN(columns.sentAt(index))) {
      const kind = failures.get(error as object) ?? 'dropped';
      columns.failed(index, kind, reasonOfFailure(error, kind));
    }
    columns.complete(index);
  };
  // Options passed on as given: none keeps the promise API's fast paths (a lease: the task runs at once).
  const schedule = (task: Task, taskOptions?: object): Promise<unknown> => {
    // A schedule call inside a task's (or a task's run inside a schedule call) restores the outer one's after.
    const { scheduling: outer, arrivedAt: outerAt } = recording;
    const index = openArrival(recording, taskOptions);
    // Without retry a task's end is its arrival's last news: complete then, not a turn later at its promise.
    const endsOnce = (taskOptions as { retry?: unknown } | undefined)?.retry === undefined;
    recording.scheduling = index;
    let result: Promise<unknown>;
    try {
      result = throttler.schedule(recordedRun(task, recording, index, endsOnce), taskOptions);
    } finally {
      recording.scheduling = outer;
      recording.arrivedAt = outerAt;
    }
    // A task that started at once (the promise API's lease path) and ends once is completed by its wrapper:
    // only one that waits, or may retry, needs its promise watched (the reaction is most of what it costs).
    if (!endsOnce || Number.isNaN(columns.sentAt(index))) {
      const settled = (error?: unknown) => settle(index, error);
      result.then(() => settled(), settled);
    }
    return result;
  };
  return {
    schedule: schedule as T['schedule'],
    get arrivals() {
      return columns.arrivals;
    },
    close() {
      throttler.off('dropped', onDropped);
      throttler.off('rejected', onRejected);
      columns.close();
    },
  };
}

/** The messages of a QUEUE or QUEUE_BATCH inspected on its way to `actor`, with their fields. */
function queuedOf(event: InspectionEvent, actor: AnyActorRef): Record<string, unknown>[] {
  if (event.type !== '@xstate.event' || event.actorRef !== actor) return [];
  const sent = event.event as { type: string; messages?: unknown } & Record<string, unknown>;
  if (sent.type === 'QUEUE') return [sent];
  return sent.type === 'QUEUE_BATCH' && Array.isArray(sent.messages)
    ? (sent.messages as Record<string, unknown>[])
    : [];
}

/**
 * Records a throttler actor's traffic from what it already tells: the QUEUE and QUEUE_BATCH events it
 * receives (by inspection: `actor.system.inspect`) and its `delivered`, `dropped` and `rejected` events.
 * The machine cannot know when a message's work ended: with `awaitEnds: true` each delivered arrival is held
 * until the app calls `finished(message, end)` (or `maxPending` later arrivals pass it), else it is written
 * once decided. One recorded arrival per message object at a time.
 */
export function recordActor(
  actor: AnyActorRef,
  options: RecorderOptions & { awaitEnds?: boolean | undefined },
): ActorRecording {
  const recording = start(options, clockOf(actor, 'actor'));
  const { now, startedAt } = recording;
  const log = new ArrivalLog(recording.write, recording.maxPending, recording.header);
  const awaitEnds = options.awaitEnds === true;
  const entries = new Map<object, LogEntry>();
  let arrivals = 0;
  const inspection = actor.system.inspect((event: InspectionEvent) => {
    for (const queued of queuedOf(event, actor)) {
      arrivals++;
      entries.set(queued.message as object, log.open(arrivalOf(queued, toMicroseconds(now() - startedAt), recording)));
    }
  });
  const decided = (message: object, fill: (arrival: RecordedArrival) => void, done: boolean) => {
    const entry = entries.get(message);
    if (entry === undefined) return;
    fill(entry.arrival);
    if (!done) return;
    entries.delete(message);
    log.complete(entry);
  };
  const subscriptions = [
    actor.on('delivered', (event: { message: object; at: number }) =>
      decided(event.message, (arrival) => (arrival.sent = toMicroseconds(event.at - startedAt)), !awaitEnds),
    ),
    actor.on('dropped', (event: { message: object; reason: string }) =>
      decided(event.message, (arrival) => (arrival.dropped = event.reason), true),
    ),
    actor.on('rejected', (event: { message: object; reason: string }) =>
      decided(event.message, (arrival) => (arrival.rejected = event.reason), true),
    ),
  ];
  return {
    get arrivals() {
      return arrivals;
    },
    finished(message, end) {
      const entry = entries.get(message);
      if (!awaitEnds || entry === undefined || entry.arrival.sent === undefined) return;
      ended(recording, entry, end);
      decided(message, () => undefined, true);
    },
    close() {
      inspection.unsubscribe();
      for (const subscription of subscriptions) subscription.unsubscribe();
      entries.clear();
      log.close();
    },
  };
}
