/**
 * Running the promise API's tasks as the throttler delivers them: a task
 * starts at the moment of delivery, synchronously, and its promise settles as
 * `fn` does. With settling reported (`maxConcurrent`, `countUntil: 'done'`)
 * every task tells the throttler when it has settled, so the next may start.
 *
 * A task's pause, setRate or stop reaches the busy machine's mailbox and takes
 * effect after the delivery pass it runs in: the delivery gate holds the rest
 * of that pass back until then. It stays closed for the synchronous stretch
 * (the mailbox is handled within it). If it held anything back, reopening it
 * is an event (`resumePass`, a WAKE): the pass goes on then, not on the
 * machine's zero-delay wake-up, a `setImmediate` that fake timers faking only
 * `setTimeout` never run (the next task would wait for the next real turn).
 */
import type { TransitMeter } from '../engine/index.js';
import type { MachineEvent } from '../machine/index.js';
import { type CostInput, type Dimensions, resolveActualCost } from '../rate/index.js';
import { addCallerFrames } from './caller-frames.js';
import { describeAttempt, RunningTask, type RunningTaskInfo } from './running-task.js';
import type { Task, TaskKeeper } from './task.js';
import type { TaskActivity } from './task-activity.js';
import { isThenable, type TaskEvents } from './task-events.js';
import { RETRYING, type TaskContext } from './task-plan.js';
import type { TaskRetries } from './task-retry.js';
import type { TaskTimeouts } from './task-timeout.js';

export interface RunnerSetup {
  keeper: TaskKeeper;
  reportsSettling: boolean;
  /** Sends the throttler a task's SETTLED (only with `reportsSettling`) or ACTUAL_COST, unless it stopped. */
  send: (event: MachineEvent) => void;
  /** Where a throwing `settle` is reported (`onHandlerError`). */
  events: TaskEvents;
  /** The throttler's dimensions, against which a `settle`'s cost map is checked. */
  dimensions: Dimensions | undefined;
  /** Hears every task's outcome before its promise settles and its settling is reported (the `serverLimits` option). */
  hear: ((value: unknown, error?: unknown) => void) | undefined;
  /** Tells the throttler the gate reopened on a pass it held (a WAKE), once the change it waited for is in. */
  resumePass: () => void;
  /** Rejects a task that never started (reported as dropped). */
  drop: (task: Task, error: unknown) => void;
  activity: TaskActivity;
  retries: TaskRetries | undefined;
  /** The tasks' timeouts, on the throttler's clock; undefined without the timeout feature. */
  timeouts: TaskTimeouts | undefined;
  /** The throttler's time, each attempt's `startTime`. */
  now: () => number;
  /** With a measured transit: the meter each attempt's start and outcome go to, on `now`. */
  transitMeter?: TransitMeter | undefined;
}

export class TaskRunner {
  /** A task's `fn` is running (inside a delivery pass). */
  running = false;
  private holdingPass = false;
  /** The gate said no while closed: a pass is held, and reopening must tell the throttler. */
  private heldBack = false;
  /**
   * Whether each attempt's start is read as it starts: with a transit meter (which needs it), or once
   * `runningTasks` has been read (a reader then sees exact starts; before, an attempt's start is read as its
   * function returns).
   */
  private readsStarts: boolean;
  /** Running attempts whose function read its signal, which stop() aborts. */
  private readonly withSignal = new Set<RunningTask>();
  /** Every attempt started and not finished, oldest first, linked through them: `runningTasks` reads it, O(running). */
  private oldest: RunningTask | undefined = undefined;
  private newest: RunningTask | undefined = undefined;
  private readonly keeper: TaskKeeper;
  private readonly reportsSettling: boolean;
  private readonly hear: ((value: unknown, error?: unknown) => void) | undefined;
  private readonly activity: TaskActivity;
  private readonly retries: TaskRetries | undefined;
  /** The running attempts' timeouts, which stop() releases; without the timeout feature, none. */
  readonly timeouts: TaskTimeouts | undefined;

  constructor(private readonly setup: RunnerSetup) {
    ({
      keeper: this.keeper,
      reportsSettling: this.reportsSettling,
      hear: this.hear,
      activity: this.activity,
      retries: this.retries,
    } = setup);
    this.timeouts = setup.timeouts;
    this.readsStarts = setup.transitMeter !== undefined;
  }

  /** The throttler's delivery gate: closed while a task's change to its own throttler waits in the mailbox. */
  readonly deliveryGate = (): boolean => {
    if (!this.holdingPass) return true;
    this.heldBack = true;
    return false;
  };

  /** Called from a running task before it sends a change: the rest of the pass waits for it. */
  holdRestOfPass(): void {
    if (!this.running || this.holdingPass) return;
    this.holdingPass = true;
    queueMicrotask(this.reopenGate);
  }

  private readonly reopenGate = (): void => {
    this.holdingPass = false;
    if (!this.heldBack) return;
    this.heldBack = false;
    this.setup.resumePass();
  };

  /** Starts a delivered task (the throttler's target receives it). */
  readonly start = (task: Task): void => {
    const { signal } = task;
    if (task.gone || signal?.aborted) {
      // Rejected while its QUEUE_BATCH waited in a busy machine's mailbox, or its signal fired and
      // the machine handed it over before the signal's listener ran (another listener made it
      // deliver): never run. The delivery is already counted; with settling it frees its slot.
      if (signal !== undefined) this.setup.drop(task, signal.reason);
      task.releaseSettlers();
      if (this.reportsSettling) this.settled(task);
      return;
    }
    const { run, resolve, reject, plan } = task;
    if (plan?.retry !== undefined) this.retries?.starting(task, plan);
    const attempt = new RunningTask(task, resolve, reject, signal, this.withSignal);
    // Counted running before it stops waiting: 'idle' is never seen in between.
    this.activity.starting();
    task.leave(this.keeper);
    if (!this.reportsSettling) task.releaseSettlers();
    this.execute(run, attempt);
  };

  /**
   * Starts a task on a leased permit, inside its `schedule` call (task-lease.ts): what `start` does
   * for a delivered task, with no Task and no settling to report (no lease is asked for with settling).
   */
  runNow<R>(run: (context: TaskContext) => R | PromiseLike<R>): Promise<Awaited<R>> {
    const attempt = new RunningTask(undefined, this.keepValue, this.keepError, undefined, this.withSignal);
    this.activity.starting();
    this.execute(run, attempt);
    // Settled within the call (the common case): no promise of its own and no closures to make.
    if (attempt.finished) {
      const { failed, outcome } = this.settledNow;
      this.settledNow.outcome = undefined;
      return (failed ? Promise.reject(outcome) : Promise.resolve(outcome)) as Promise<Awaited<R>>;
    }
    return new Promise<Awaited<R>>((resolve, reject) => {
      attempt.resolve = resolve;
      attempt.reject = reject;
    });
  }

  /** The outcome of a leased task that settled inside its `runNow` (read at once, so one for all is enough). */
  private readonly settledNow = { failed: false, outcome: undefined as unknown };
  private readonly keepValue = (value: unknown): void => {
    this.settledNow.failed = false;
    this.settledNow.outcome = value;
  };
  private readonly keepError = (error: unknown): void => {
    this.settledNow.failed = true;
    this.settledNow.outcome = error;
  };

  /** A snapshot of every running attempt, oldest first (`runningTasks`). */
  runningTasks(): RunningTaskInfo[] {
    const now = this.setup.now();
    // Read once: from now on every attempt's start is read as it starts.
    this.readsStarts = true;
    const running: RunningTaskInfo[] = [];
    for (let attempt = this.oldest; attempt !== undefined; attempt = attempt.newer) {
      // Running in this very call (the reader is its function, or what it called): it started now, as far as anyone saw.
      attempt.startTime ??= now;
      running.push(describeAttempt(attempt, now));
    }
    return running;
  }

  /** The attempt joins the running ones, as the newest. */
  private link(attempt: RunningTask): void {
    const newest = this.newest;
    attempt.older = newest;
    if (newest === undefined) this.oldest = attempt;
    else newest.newer = attempt;
    this.newest = attempt;
  }

  /** The attempt leaves the running ones. */
  private unlink(attempt: RunningTask): void {
    const { older, newer } = attempt;
    if (older === undefined) this.oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.newest = older;
    else newer.older = older;
    attempt.older = attempt.newer = undefined;
  }

  /** Aborts the signal of every running task that read it (stop()). */
  abortRunning(reason: unknown): void {
    for (const attempt of [...this.withSignal]) attempt.abort(reason);
  }

  private execute(run: (context: TaskContext) => unknown, attempt: RunningTask): void {
    const plan = attempt.plan;
    // The budget weighs retries against first attempts: a retry counted as traffic would raise its own allowance.
    if (plan === undefined || plan.attempt === 1) this.retries?.ledger?.firstAttemptStarted();
    this.activity.started(plan?.id);
    // Its start is read now only where it may be seen: once `runningTasks` was read, or by the transit meter.
    // Otherwise as its function returns, if it still runs then; one that settled inside its call is never listed.
    if (this.readsStarts) attempt.startTime = this.setup.now();
    this.link(attempt);
    const meter = this.setup.transitMeter;
    if (meter !== undefined) attempt.transit = meter.started(attempt.startTime as number);
    let result: unknown;
    this.running = true;
    try {
      result = run(attempt);
    } catch (error) {
      this.running = false;
      // A slot reported free, or an outcome heard, goes the way a rejected promise's would: after this call.
      if (!this.reportsSettling && this.hear === undefined) {
        this.finish(attempt, true, error, true, true);
        return;
      }
      result = Promise.reject(error);
    } finally {
      this.running = false;
    }
    if (plan?.timeout !== undefined && !attempt.finished) {
      this.timeouts?.arm(attempt, plan.timeout, (error) =>
        this.finish(attempt, true, addCallerFrames(error, attempt.task?.origin), false),
      );
    }
    if (!this.reportsSettling && this.hear === undefined && !isThenable(result)) {
      this.finish(attempt, false, result, true, true);
      return;
    }
    // It runs on past its call (a timeout may have ended it already): its start is read, if it was not.
    if (attempt.startTime === undefined && !attempt.finished) attempt.startTime = this.setup.now();
    // What the server said is heard before anything else may start on the slot this task frees.
    Promise.resolve(result).then(
      (value) => this.finish(attempt, false, value, true),
      (error: unknown) => this.finish(attempt, true, error, true),
    );
  }

  /**
   * The attempt's outcome, or its timeout (`heard` false: the server said nothing), whichever comes
   * first: heard by `serverLimits`, retried or counted settled, its slot reported free (the next task,
   * started at once, reads `pending` without it), then its promise settled. `synchronous`: it settled
   * inside the call that started it, and counts as running until the next microtask, as on every other path.
   */
  private finish(attempt: RunningTask, failed: boolean, outcome: unknown, heard: boolean, synchronous = false): void {
    if (attempt.finished) return;
    const ownSignal = attempt.ownSignal;
    attempt.release();
    this.unlink(attempt);
    this.timeouts?.disarm(attempt);
    // A timeout ends the round trip too: past it, the meter would count a request that may never arrive.
    if (attempt.transit !== undefined) this.setup.transitMeter?.finished(attempt.transit, this.setup.now());
    if (heard) this.hear?.(failed ? undefined : outcome, failed ? outcome : undefined);
    const { task, plan } = attempt;
    // The actual cost first: the slot SETTLED frees is then judged with it.
    if (!failed && plan?.settle !== undefined && task !== undefined) this.settleActual(task, plan.settle, outcome);
    let retrying = false;
    if (failed && plan?.retry !== undefined) {
      // A plan has a retry only where the retry feature read it: its retries are there.
      const settleWith = (this.retries as TaskRetries).retry(attempt, ownSignal, outcome);
      retrying = settleWith === RETRYING;
      outcome = settleWith;
    }
    if (!retrying) {
      if (synchronous) this.activity.settledSoon(failed, outcome, plan?.id);
      else this.activity.settled(failed, outcome, plan?.id);
    }
    if (this.reportsSettling && task !== undefined) this.settled(task);
    if (retrying) return;
    if (failed) attempt.reject(outcome);
    else attempt.resolve(outcome);
  }

  private settled(task: Task): void {
    task.releaseSettlers();
    this.setup.send({ type: 'SETTLED', channel: task.channel, cost: task.cost });
  }

  /** ACTUAL_COST for the attempt that succeeded; a settle that throws or returns no cost keeps the estimate. */
  private settleActual(task: Task, settle: (result: unknown) => unknown, value: unknown): void {
    let cost: unknown;
    try {
      cost = settle(value);
      // Checked as the machine would (a number, or with dimensions a map of them), so a bad one is reported here.
      resolveActualCost(cost, 0, this.setup.dimensions, 'settle()');
    } catch (error) {
      this.setup.events.report(error, 'settle');
      return;
    }
    this.setup.send({ type: 'ACTUAL_COST', id: task, cost: cost as CostInput });
  }
}
