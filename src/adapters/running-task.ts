/**
 * One started attempt of a task, and what its function receives: `{ signal }`, an AbortSignal aborted
 * when the task's own signal (ScheduleOptions.signal) fires, when its `timeout` passes, or when the
 * throttler is stopped while it runs. The controller is made the first time the function reads
 * `signal`: a task that never reads it costs this object only. The attempt settles once: whichever of
 * its outcome and its timeout comes first.
 */
import { levelOf, type TransitTicket } from '../engine/index.js';
import type { Task } from './task.js';
import type { TaskId } from './task-events.js';
import type { TaskContext, TaskPlan } from './task-plan.js';

/** One entry of `throttler.runningTasks`: a started attempt as it was when read. */
export interface RunningTaskInfo {
  /** The task's `id`, when it was given one. */
  readonly id: TaskId | undefined;
  /**
   * When the attempt started, on the throttler's clock (`now`, performance.now() by default). The clock is read
   * at each start once `runningTasks` has been read; before that, as the function returns or at the read.
   */
  readonly startTime: number;
  /** Its priority (0-9; 5 when not given). */
  readonly priority: number;
  /** Its channel, when it was given one. */
  readonly channel: string | undefined;
  /** The attempt's number: 1 for the first, 2 for the first retry. */
  readonly attempt: number;
  /** Its `timeout` in ms, when it has one. */
  readonly timeout: number | undefined;
  /** Ms left before its timeout, when it has one (0 at the least). */
  readonly timeoutRemaining: number | undefined;
}

export class RunningTask implements TaskContext {
  /** It settled (or timed out): nothing more of it counts. */
  finished = false;
  /** With a measured transit: its start, held by the meter until its outcome. */
  transit: TransitTicket | undefined = undefined;
  /**
   * When it started, on the throttler's clock (for `runningTasks`); undefined until read (TaskRunner.execute:
   * a clock reading was a third of a task's cost, and an attempt that settles inside its call is never listed).
   */
  startTime: number | undefined = undefined;
  /**
   * Its neighbours among the running attempts, oldest first (TaskRunner's list for `runningTasks`): two
   * fields written as it starts and as it finishes, where a Set of attempts cost a hash entry a task.
   */
  older: RunningTask | undefined = undefined;
  newer: RunningTask | undefined = undefined;
  private controller: AbortController | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    /** The queued task it came from; undefined for one started on a leased permit (no Task). */
    readonly task: Task | undefined,
    /** Set later for a leased task that did not settle within its call (TaskRunner.runNow). */
    public resolve: (value: any) => void,
    public reject: (reason: unknown) => void,
    /** The task's own signal, still watched while it runs (for `signal`). */
    readonly ownSignal: AbortSignal | undefined,
    /** The attempts whose signal was read, which `stop()` aborts. */
    private readonly withSignal: Set<RunningTask>,
  ) {}

  /** Its task's id, timeout and retry, if it was given any (its task's: not a field, every field costs every task). */
  get plan(): TaskPlan | undefined {
    return this.task?.plan;
  }

  get signal(): AbortSignal {
    if (this.controller !== undefined) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    if (this.finished) return controller.signal;
    const own = this.ownSignal;
    if (own?.aborted) {
      controller.abort(own.reason);
    } else if (own !== undefined) {
      const listener = (): void => controller.abort(own.reason);
      own.addEventListener('abort', listener, { once: true });
      this.unlisten = () => own.removeEventListener('abort', listener);
    }
    this.withSignal.add(this);
    return controller.signal;
  }

  /** Aborts its signal (if its function read it) with `reason`. */
  abort(reason: unknown): void {
    this.controller?.abort(reason);
  }

  /** It settled: its signal is no longer tied to anything. */
  release(): void {
    this.finished = true;
    if (this.controller === undefined) return;
    this.withSignal.delete(this);
    this.unlisten?.();
    this.unlisten = undefined;
  }
}

/** What `runningTasks` shows of an attempt at `now`: a fresh object, so nothing read changes the attempt. */
export function describeAttempt(attempt: RunningTask, now: number): RunningTaskInfo {
  const { plan, task } = attempt;
  const timeout = plan?.timeout;
  return {
    id: plan?.id,
    startTime: attempt.startTime as number,
    priority: levelOf({ priority: task?.priority }),
    channel: task?.channel,
    attempt: plan?.attempt ?? 1,
    timeout,
    timeoutRemaining: timeout === undefined ? undefined : Math.max(0, (attempt.startTime as number) + timeout - now),
  };
}
