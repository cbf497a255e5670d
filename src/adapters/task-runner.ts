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
import type { Task, TaskKeeper } from './task.js';

export class TaskRunner {
  /** A task's `fn` is running (inside a delivery pass). */
  running = false;
  private holdingPass = false;
  /** The gate said no while closed: a pass is held, and reopening must tell the throttler. */
  private heldBack = false;

  constructor(
    private readonly keeper: TaskKeeper,
    private readonly reportsSettling: boolean,
    /** Tells the throttler a delivered task has settled (SETTLED); only with `reportsSettling`. */
    private readonly reportSettled: (task: Task) => void,
    /** Hears every task's outcome before its promise settles and its settling is reported (the `serverLimits` option). */
    private readonly hear: ((value: unknown, error?: unknown) => void) | undefined,
    /** Tells the throttler the gate reopened on a pass it held (a WAKE), once the change it waited for is in. */
    private readonly resumePass: () => void,
  ) {}

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
    this.resumePass();
  };

  /** Starts a delivered task (the throttler's target receives it). */
  readonly start = (task: Task): void => {
    const { signal } = task;
    if (task.gone || signal?.aborted) {
      // Rejected while its QUEUE_BATCH waited in a busy machine's mailbox, or its signal fired and
      // the machine handed it over before the signal's listener ran (another listener made it
      // deliver): never run. The delivery is already counted; with settling it frees its slot.
      if (signal !== undefined) task.fail(signal.reason, this.keeper);
      task.releaseSettlers();
      if (this.reportsSettling) this.settled(task);
      return;
    }
    const { run, resolve, reject } = task;
    task.leave(this.keeper);
    if (!this.reportsSettling) task.releaseSettlers();
    let result: unknown;
    this.running = true;
    const hear = this.hear;
    try {
      result = run();
    } catch (error) {
      hear?.(undefined, error);
      if (this.reportsSettling) this.settled(task);
      reject(error);
      return;
    } finally {
      this.running = false;
    }
    if (!this.reportsSettling && hear === undefined) {
      resolve(result);
      return;
    }
    // What the server said is heard before anything else may start on the slot this task frees.
    Promise.resolve(result).then(
      (value) => {
        hear?.(value);
        if (this.reportsSettling) this.settled(task);
        resolve(value);
      },
      (error: unknown) => {
        hear?.(undefined, error);
        if (this.reportsSettling) this.settled(task);
        reject(error);
      },
    );
  };

  /**
   * Starts a task on a leased permit, inside its `schedule` call (task-lease.ts): what `start` does
   * for a delivered task, with no Task and no settling to report (no lease is asked for with settling).
   */
  runNow<R>(run: () => R | PromiseLike<R>): Promise<Awaited<R>> {
    let result: R | PromiseLike<R>;
    const hear = this.hear;
    this.running = true;
    try {
      result = run();
    } catch (error) {
      hear?.(undefined, error);
      return Promise.reject(error);
    } finally {
      this.running = false;
    }
    if (hear === undefined) return Promise.resolve(result) as Promise<Awaited<R>>;
    return Promise.resolve(result).then(
      (value) => {
        hear(value);
        return value;
      },
      (error: unknown) => {
        hear(undefined, error);
        throw error;
      },
    ) as Promise<Awaited<R>>;
  }

  private settled(task: Task): void {
    task.releaseSettlers();
    this.reportSettled(task);
  }
}
