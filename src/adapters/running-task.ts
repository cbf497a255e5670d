/**
 * One started attempt of a task, and what its function receives: `{ signal }`, an AbortSignal aborted
 * when the task's own signal (ScheduleOptions.signal) fires, when its `timeout` passes, or when the
 * throttler is stopped while it runs. The controller is made the first time the function reads
 * `signal`: a task that never reads it costs this object only. The attempt settles once: whichever of
 * its outcome and its timeout comes first.
 */
import type { TransitTicket } from '../engine/index.js';
import type { Task } from './task.js';
import type { TaskContext, TaskPlan } from './task-plan.js';

export class RunningTask implements TaskContext {
  /** It settled (or timed out): nothing more of it counts. */
  finished = false;
  /** Its timeout's timer, while armed. */
  timer: unknown = undefined;
  /** With a measured transit: its start, held by the meter until its outcome. */
  transit: TransitTicket | undefined = undefined;
  private controller: AbortController | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    /** The queued task it came from; undefined for one started on a leased permit (no Task). */
    readonly task: Task | undefined,
    readonly plan: TaskPlan | undefined,
    /** Set later for a leased task that did not settle within its call (TaskRunner.runNow). */
    public resolve: (value: any) => void,
    public reject: (reason: unknown) => void,
    /** The task's own signal, still watched while it runs (for `signal`). */
    readonly ownSignal: AbortSignal | undefined,
    /** The attempts whose signal was read, which `stop()` aborts. */
    private readonly withSignal: Set<RunningTask>,
  ) {}

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
