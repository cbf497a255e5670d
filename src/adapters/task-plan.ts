/**
 * A task's `id`, `timeout`, `retry` and `settle` (ScheduleOptions), checked once as it is scheduled, each error
 * naming the field and the value. Only a task given one of them has a plan: the others cost nothing.
 *
 * Backoff by default: exponential with "equal jitter". Before retry n (n = 1 for the first) the task
 * waits d/2 + random() × d/2, where d = min(max, initial × factor^(n-1)); initial 1 s, factor 2, max
 * 30 s, random `Math.random` (give `backoff.random` for a fixed sequence in tests). Half the delay is
 * fixed, so retries never bunch at zero; the other half spreads them.
 */
import { checkOptionNames, type OptionHintsFeature, type Place } from '../engine/index.js';
import { type DurationInput, parseDuration, ThrottlerOptionError } from '../rate/index.js';
import { type ResolvedBudget, type RetryBudgetOptions, resolveBudget } from './retry-budget.js';
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

export const DEFAULT_BACKOFF = { initial: 1_000, factor: 2, max: 30_000 } as const;

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
  hints?: OptionHintsFeature,
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
  return {
    id,
    // Infinity is "no limit", as p-timeout reads it: no timer at all.
    timeout:
      timeout === undefined || timeout === Number.POSITIVE_INFINITY
        ? undefined
        : parseDuration(timeout as DurationInput, 'timeout'),
    retry: retry === undefined ? undefined : resolveRetry(retry, hints),
    settle: settle as TaskPlan['settle'],
    attempt: 1,
  };
}

function resolveRetry(retry: unknown, hints: OptionHintsFeature | undefined): ResolvedRetry {
  if (typeof retry !== 'object' || retry === null) {
    throw new ThrottlerOptionError('retry', 'an object such as { retries: 3 }', retry);
  }
  // An unknown field (p-retry's minTimeout, maxRetryTime, forever) would otherwise be ignored quietly.
  checkFieldNames(retry, ['retries', 'backoff', 'retryOn', 'budget', 'place'], 'retry', hints);
  const { retries, backoff, retryOn, budget, place } = retry as Partial<RetryOptions>;
  // Infinity: no limit on the number (as p-retry reads it); the budget, retryOn and stop() still end it.
  if ((!Number.isSafeInteger(retries) || (retries as number) < 0) && retries !== Number.POSITIVE_INFINITY) {
    throw new ThrottlerOptionError('retry.retries', 'a non-negative integer, or Infinity for no limit', retries);
  }
  if (retryOn !== undefined && typeof retryOn !== 'function') {
    throw new ThrottlerOptionError('retry.retryOn', 'a function (error, attempt) => boolean', retryOn);
  }
  // Its answer is read at once: an async one's promise would count as "retry" whatever it resolves to.
  if (retryOn?.constructor.name === 'AsyncFunction') {
    throw new ThrottlerOptionError('retry.retryOn', 'a synchronous function (error, attempt) => boolean', retryOn);
  }
  if (place !== undefined && place !== 'keep' && place !== 'back') {
    throw new ThrottlerOptionError('retry.place', '"keep" (its place in line, the default) or "back"', place);
  }
  return {
    retries: retries as number,
    delay: backoffDelay(backoff, hints),
    retryOn,
    budget: budget === undefined ? undefined : resolveBudget(budget),
    keepsPlace: place !== 'back',
  };
}

/** checkOptionNames for a nested object, its error naming the field by its path (`retry.minTimeout`). */
function checkFieldNames(
  value: object,
  known: readonly string[],
  where: string,
  hints: OptionHintsFeature | undefined,
): void {
  try {
    checkOptionNames(value, known, where, false, hints);
  } catch (error) {
    if (!(error instanceof ThrottlerOptionError)) throw error;
    const named = new ThrottlerOptionError(`${where}.${error.option}`, '', error.value);
    named.message = `${where}.${error.message}`;
    throw named;
  }
}

function backoffDelay(
  backoff: unknown,
  hints: OptionHintsFeature | undefined,
): (retry: number, error: unknown) => number {
  if (typeof backoff === 'function') {
    return (retry, error) => {
      const delay = backoff(retry, error) as unknown;
      // 0 is a delay a function may choose (retry at once); parseDuration refuses it.
      return delay === 0 ? 0 : parseDuration(delay as DurationInput, 'retry.backoff()');
    };
  }
  if (backoff !== undefined && (typeof backoff !== 'object' || backoff === null)) {
    throw new ThrottlerOptionError('retry.backoff', '{ initial?, factor?, max?, random? } or a function', backoff);
  }
  if (backoff !== undefined) checkFieldNames(backoff, ['initial', 'factor', 'max', 'random'], 'retry.backoff', hints);
  const options = (backoff ?? {}) as BackoffOptions;
  const initial =
    options.initial === undefined ? DEFAULT_BACKOFF.initial : parseDuration(options.initial, 'retry.backoff.initial');
  const max = options.max === undefined ? DEFAULT_BACKOFF.max : parseDuration(options.max, 'retry.backoff.max');
  const factor = options.factor ?? DEFAULT_BACKOFF.factor;
  if (typeof factor !== 'number' || !(factor >= 1) || !Number.isFinite(factor)) {
    throw new ThrottlerOptionError('retry.backoff.factor', 'a finite number >= 1', factor);
  }
  const random = options.random ?? Math.random;
  if (typeof random !== 'function') {
    throw new ThrottlerOptionError('retry.backoff.random', 'a function returning a number in [0, 1)', random);
  }
  return (retry) => {
    const ceiling = Math.min(max, initial * factor ** (retry - 1));
    const draw = random();
    if (typeof draw !== 'number' || !(draw >= 0 && draw <= 1)) {
      throw new ThrottlerOptionError('retry.backoff.random()', 'a number from 0 to 1', draw);
    }
    return ceiling / 2 + (draw * ceiling) / 2;
  };
}
