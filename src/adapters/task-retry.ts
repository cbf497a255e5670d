/**
 * Retries (ScheduleOptions.retry): a failed attempt runs again through the throttler, as a new queue
 * entry with the task's channel, cost and priority, so every attempt counts against the limits and
 * waits its turn. It waits out its backoff first, counted as waiting (`size`), then (`place: 'keep'`,
 * the default) takes the place in line of the task's first arrival (`QueuedMessage.place`): it goes
 * before the tasks that arrived after that, as Bottleneck's retries do, not behind a backlog that
 * arrived while it ran and backed off (`'back'`). `retryStarted` says how long it waited in all. A pause that
 * `serverLimits` set from the failure's Retry-After (heard before the attempt settles) holds it after
 * that, so it starts no earlier than the later of the two. The promise settles with the last outcome.
 *
 * Not retried: the last allowed attempt, an error `retryOn` declines, a task whose own signal fired,
 * a retry the budget refuses (retry-budget.ts), and any after `stop()` or `clear()` (a waiting retry is
 * rejected then, like any waiting task). A `retryOn` or `backoff` that throws rejects the task with its error.
 */
import type { Clock } from '../machine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { withCallerFrames } from './caller-frames.js';
import { LongTimer } from './long-timer.js';
import { RetryLedger } from './retry-budget.js';
import type { RunningTask } from './running-task.js';
import type { Task } from './task.js';
import type { TaskActivity } from './task-activity.js';
import type { TaskEvents } from './task-events.js';
import { RETRYING, type TaskPlan } from './task-plan.js';

/** What a retry's next attempt needs to be queued again. */
export interface RetryAttempt {
  readonly plan: TaskPlan;
  readonly resolve: (value: any) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
}

interface Backoff extends RetryAttempt {
  timer: LongTimer | undefined;
  unlisten: (() => void) | undefined;
}

export class TaskRetries {
  /** Made by the first task whose retry names a budget; every attempt is recorded from then on. */
  ledger: RetryLedger | undefined;
  /** Set by stop(): no failure is retried from then on. */
  refusing = false;
  /** How many times clear() was called: a task scheduled before the last one, still running then, is not retried. */
  private clears = 0;
  /**
   * The seq of a place taken by a task that went straight through: below every queued message's (such a task
   * went before everything waiting), and rising, so that two that went in the same ms keep their order.
   */
  private straightThrough = Number.MIN_SAFE_INTEGER;
  private readonly backingOff = new Set<Backoff>();

  constructor(
    private readonly clock: Clock,
    private readonly now: () => number,
    private readonly activity: TaskActivity,
    private readonly events: TaskEvents,
    /** Queues the next attempt (its task is counted waiting already). */
    private readonly requeue: (attempt: RetryAttempt) => void,
  ) {}

  /** A task with this plan was scheduled: a budget needs the ledger from now on. */
  planned(plan: TaskPlan): void {
    plan.clearsBefore = this.clears;
    const budget = plan.retry?.budget;
    if (budget === undefined) return;
    this.ledger ??= new RetryLedger(this.now);
    this.ledger.uses(budget);
  }

  /**
   * An attempt of a task with a retry starts: the first takes note of its place in line (its queue entry's,
   * or now before anything waiting if it went straight through), which its retries keep; a retry says how
   * long it waited since the failure (`retryStarted`).
   */
  starting(task: Task, plan: TaskPlan): void {
    if (plan.attempt === 1) {
      if (plan.retry?.keepsPlace)
        plan.place = task.reachedQueue
          ? { at: task.queuedAt, seq: task.seq }
          : { at: this.now(), seq: this.straightThrough++ };
      return;
    }
    if (!this.events.hears('retryStarted')) return;
    // To the microsecond: a float's tail tells nothing.
    const waited = Math.round((this.now() - (plan.failedAt as number)) * 1000) / 1000;
    this.events.emit('retryStarted', plan.id, { attempt: plan.attempt, delay: plan.backoff as number, waited });
  }

  /** `attempt` failed with `error`: RETRYING when it will run again, else the error its promise rejects with. */
  retry(attempt: RunningTask, signal: AbortSignal | undefined, error: unknown): unknown {
    const plan = attempt.plan as TaskPlan;
    const retry = plan.retry;
    if (retry === undefined || plan.attempt > retry.retries || this.refusing || signal?.aborted) return error;
    if (plan.clearsBefore !== this.clears) return error;
    let delay: number;
    try {
      if (retry.retryOn !== undefined) {
        const answer: unknown = retry.retryOn(error, plan.attempt);
        // A promise (a plain function returning one) would be truthy whatever it resolves to: say so instead.
        if (typeof answer !== 'boolean') {
          return new ThrottlerOptionError('retry.retryOn', 'a function returning true or false at once', answer);
        }
        if (!answer) return error;
      }
      delay = retry.delay(plan.attempt, error);
    } catch (callbackError) {
      return callbackError;
    }
    if (retry.budget !== undefined && !(this.ledger as RetryLedger).grant(retry.budget)) return error;
    plan.attempt += 1;
    plan.failedAt = this.now();
    plan.backoff = delay;
    this.activity.retrying();
    const backoff: Backoff = {
      plan,
      resolve: attempt.resolve,
      reject: attempt.reject,
      signal,
      timer: undefined,
      unlisten: undefined,
    };
    this.backingOff.add(backoff);
    if (signal !== undefined) {
      const listener = (): void => this.drop(backoff, signal.reason);
      signal.addEventListener('abort', listener, { once: true });
      backoff.unlisten = () => signal.removeEventListener('abort', listener);
    }
    backoff.timer = new LongTimer(
      this.clock,
      () => {
        this.leave(backoff);
        this.requeue(backoff);
      },
      delay,
    );
    this.events.emit('retry', error, plan.id, { attempt: plan.attempt, delay });
    return RETRYING;
  }

  /** clear(): every retry waiting out its backoff is rejected with `error`, and no task running now will retry. */
  clear(error: unknown): void {
    this.clears += 1;
    this.dropAll(error);
  }

  /** Rejects every retry waiting out its backoff with `error` (clear(), stop()). */
  dropAll(error: unknown): void {
    for (const backoff of [...this.backingOff]) this.drop(backoff, error);
  }

  private drop(backoff: Backoff, error: unknown): void {
    if (!this.backingOff.has(backoff)) return;
    backoff.timer?.cancel();
    this.leave(backoff);
    this.events.emit('dropped', error as Error, backoff.plan.id);
    this.activity.left();
    backoff.reject(withCallerFrames(error, (backoff.plan as { origin?: Error }).origin));
  }

  private leave(backoff: Backoff): void {
    this.backingOff.delete(backoff);
    backoff.unlisten?.();
  }
}
