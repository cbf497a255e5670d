/**
 * Retries as a feature value (engine/options/features-option.ts): what reads a task's `retry` and what runs
 * its attempts again (task-retry.ts, with its budget, retry-budget.ts). The main entry loads it by itself;
 * xstate-throttler/lean only with `features: [retry]`, so an app that never retries does not bundle it.
 *
 * Backoff by default: exponential with "equal jitter". Before retry n (n = 1 for the first) the task
 * waits d/2 + random() × d/2, where d = min(max, initial × factor^(n-1)); initial 1 s, factor 2, max
 * 30 s, random `Math.random` (give `backoff.random` for a fixed sequence in tests). Half the delay is
 * fixed, so retries never bunch at zero; the other half spreads them.
 */
import { checkOptionNames, type FeatureValue, type OptionHintsFeature } from '../engine/index.js';
import type { Clock } from '../machine/index.js';
import { type DurationInput, parseDuration, ThrottlerOptionError } from '../rate/index.js';
import { resolveBudget } from './retry-budget.js';
import type { TaskActivity } from './task-activity.js';
import type { TaskEvents } from './task-events.js';
import type { BackoffOptions, ResolvedRetry, RetryOptions } from './task-plan.js';
import { type RetryAttempt, TaskRetries } from './task-retry.js';

/** The retry feature: a task's `retry` read, and a throttler's retries run. */
export interface RetryFeature extends FeatureValue<'retry'> {
  readonly resolve: (retry: unknown, hints?: OptionHintsFeature) => ResolvedRetry;
  readonly tracker: (
    clock: Clock,
    now: () => number,
    activity: TaskActivity,
    events: TaskEvents,
    requeue: (attempt: RetryAttempt) => void,
  ) => TaskRetries;
}

const retryFeature: RetryFeature = {
  feature: 'retry',
  resolve: (given, hints) => resolveRetry(given, hints),
  tracker: (clock, now, activity, events, requeue) => new TaskRetries(clock, now, activity, events, requeue),
};

/** A failed task run again through the throttler (`schedule(fn, { retry })`): pass it in `features` to xstate-throttler/lean. */
export const retry: FeatureValue<'retry'> = retryFeature;

export const DEFAULT_BACKOFF = { initial: 1_000, factor: 2, max: 30_000 } as const;

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
