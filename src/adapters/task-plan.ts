/**
 * A task's `id`, `timeout`, `retry` and `settle` (ScheduleOptions), checked once as it is scheduled, each error
 * naming the field and the value. Only a task given one of them has a plan: the others cost nothing. `retry`
 * is read by the retry feature (retry-feature.ts).
 */
import { checkOptionNames, featureMissing, type OptionHintsFeature, type Place } from '../engine/index.js';
import { type DurationInput, parseDuration, ThrottlerOptionError } from '../rate/index.js';
import type { ResolvedBudget, RetryBudgetOptions } from './retry-budget.js';
import type { TaskId } from './task-events.js';

/** What a task's function receives. */
export interface TaskContext {
  /** Aborted on the task's own abort (its `signal` option), on its `timeout`, and on `stop()` while it runs. */
  readonly signal: AbortSignal;
}

/** Exponential backoff with jitter (see task-plan.ts); every field optional. */
export interface BackoffOptions {
  /** The delay before the first retry, before jitter (`'1s'` or ms). Default 1 s. */
  initial?: DurationInput | undefined;
  /** Each further retry waits this many times longer. Default 2. */
  factor?: number | undefined;
  /** The longest delay, before jitter. Default 30 s. */
  max?: DurationInput | undefined;
  /** Where the jitter comes from: a function returning [0, 1). Default `Math.random`; `() => 1` for no jitter. */
  random?: (() => number) | undefined;
}

/** `retry`: a failed task runs again through the throttler, each attempt counting against its limits. */
export interface RetryOptions {
  /** How many times it may run again after it first fails (a non-negative integer, or `Infinity` for no limit). */
  retries: number;
  /** Exponential backoff with jitter (the default), or a function of the retry number (1 for the first) and the error. */
  backoff?: (BackoffOptions | ((retry: number, error: unknown) => DurationInput)) | undefined;
  /** Whether this error is worth another attempt (`attempt`: the one that failed, 1 for the first). Default: every error. */
  retryOn?: ((error: unknown, attempt: number) => boolean) | undefined;
  /** Retries at most this share of recent first attempts: `0.1`, or `{ ratio, window, min }` (retry-budget.ts). */
  budget?: number | RetryBudgetOptions | undefined;
  /**
   * Where a retry waits once its backoff is over: `'keep'` (the default) keeps the task's place in line, its
   * priority and first arrival, so it goes before the tasks that arrived after it; `'back'` queues it behind
   * every task waiting then, as a new arrival.
   */
  place?: RetryPlace | undefined;
}

/** `retry.place`: keep the task's place in line (the default), or go to the back. */
export type RetryPlace = 'keep' | 'back';

export interface ResolvedRetry {
  readonly retries: number;
  /** The delay before retry `retry` (1 for the first) in ms. */
  readonly delay: (retry: number, error: unknown) => number;
  readonly retryOn: ((error: unknown, attempt: number) => boolean) | undefined;
  readonly budget: ResolvedBudget | undefined;
  /** `place: 'keep'`: a retry is queued at its first arrival's place. */
  readonly keepsPlace: boolean;
}

/**
 * The features a task's options read (engine/options/features-option.ts): the option-name hints, and the
 * retry feature's reader of `retry` (retry-feature.ts), without which a `retry` is refused with what to import.
 */
export interface TaskFeatures {
  readonly optionHints?: OptionHintsFeature | undefined;
  readonly retry?: { readonly resolve: (retry: unknown, hints?: OptionHintsFeature) => ResolvedRetry } | undefined;
  /** The settle feature, without which a task's `settle` is refused with what to import. */
  readonly settle?: object | undefined;
  /** The timeout feature, without which a task's `timeout` (other than Infinity) is refused likewise. */
  readonly timeout?: object | undefined;
}

/** A task's `retry` read by the retry feature; refused without it (xstate-throttler/lean). */
function retryOf(retry: unknown, features: TaskFeatures): ResolvedRetry {
  if (features.retry === undefined) throw featureMissing('retry', "a task's retry option", features);
  return features.retry.resolve(retry, features.optionHints);
}

/**
 * What the retry feature's `retry` answers when the attempt will run again: the caller settles nothing. Here,
 * with the plan, so that the runner's check of it does not bring the retry feature's code.
 */
export const RETRYING: unique symbol = Symbol('retrying');

/** What a task with an id, a timeout or a retry carries from attempt to attempt. */
export interface TaskPlan {
  readonly id: TaskId | undefined;
  /** Ms a started attempt may run before it is rejected with a ThrottlerTimeoutError. */
  readonly timeout: number | undefined;
  readonly retry: ResolvedRetry | undefined;
  /** The task's actual cost from what it resolved with (ACTUAL_COST for its successful attempt). */
  readonly settle: ((result: unknown) => unknown) | undefined;
  /** The attempt running or waiting now: 1 for the first. */
  attempt: number;
  /** With a retry: how many clear()s came before it was scheduled (task-retry.ts); one after that ends its retries. */
  clearsBefore?: number;
  /** With `place: 'keep'`: the first attempt's place in line, which its retries take (set as it starts). */
  place?: Place;
  /** With a retry under way: when the last attempt failed, and the backoff it was given (for `retryStarted`). */
  failedAt?: number;
  backoff?: number;
}

/** Every name a task's options may have (ScheduleOptions). */
const SCHEDULE_OPTION_NAMES = [
  'channel',
  'cost',
  'signal',
  'priority',
  'maxWait',
  'deadline',
  'id',
  'timeout',
  'retry',
  'settle',
];
const KNOWN_SCHEDULE_OPTIONS: ReadonlySet<string> = new Set(SCHEDULE_OPTION_NAMES);

/**
 * Refuses a name a task's options do not have (plain JavaScript: `{ timout: 5000 }` would otherwise
 * mean no timeout), naming it and what was meant. A loop over the given names, no allocation.
 */
export function checkScheduleOptionNames(options: object, hints?: OptionHintsFeature): void {
  for (const name in options) {
    if (KNOWN_SCHEDULE_OPTIONS.has(name) || !Object.hasOwn(options, name)) continue;
    checkOptionNames(options, SCHEDULE_OPTION_NAMES, 'schedule(task, options)', false, hints);
  }
}

/**
 * The task's plan, or undefined when it has no id, timeout, retry or settle. Throws a ThrottlerOptionError on a
 * bad one; `settle` with countUntil 'done' too (`countsUntilDone`), where a cost enters the window as the task ends.
 */
export function taskPlan(
  options: { id?: unknown; timeout?: unknown; retry?: unknown; settle?: unknown },
  countsUntilDone: boolean,
  features: TaskFeatures = {},
): TaskPlan | undefined {
  const { id, timeout, retry, settle } = options;
  if (id === undefined && timeout === undefined && retry === undefined && settle === undefined) return undefined;
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number') {
    throw new ThrottlerOptionError('id', 'a string or a number', id);
  }
  if (settle !== undefined && (typeof settle !== 'function' || countsUntilDone)) {
    const expected = countsUntilDone
      ? "left out with countUntil 'done' (a cost counts from the task's end)"
      : 'a function (result) => actual cost';
    throw new ThrottlerOptionError('settle', expected, settle);
  }
  if (settle !== undefined && features.settle === undefined) {
    throw featureMissing('settle', "a task's settle option", features);
  }
  // Infinity is "no limit", as p-timeout reads it: no timer at all.
  const ms =
    timeout === undefined || timeout === Number.POSITIVE_INFINITY
      ? undefined
      : parseDuration(timeout as DurationInput, 'timeout');
  if (ms !== undefined && features.timeout === undefined) {
    throw featureMissing('timeout', "a task's timeout option", features);
  }
  return {
    id,
    timeout: ms,
    retry: retry === undefined ? undefined : retryOf(retry, features),
    settle: settle as TaskPlan['settle'],
    attempt: 1,
  };
}
