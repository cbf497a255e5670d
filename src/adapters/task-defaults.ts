/**
 * `createThrottler`'s `taskDefaults`: the task options every `schedule` call starts from (p-queue's
 * queue-level `timeout`, Bottleneck's limiter-wide retry), each overridable per task: a task's own
 * option replaces the default whole (`retry: { retries: 5 }` does not merge into the default's
 * backoff), and `timeout: Infinity` or `retry: { retries: 0 }` turns one off for that task. Checked
 * once, at creation, each error naming `taskDefaults.<field>`.
 */
import { checkOptionNames, checkPriority } from '../engine/index.js';
import { parseDuration, ThrottlerOptionError } from '../rate/index.js';
import type { ScheduleOptions } from './promise-api.js';
import { type TaskFeatures, taskPlan } from './task-plan.js';

/** The task options a throttler may default; `channel`, `cost`, `signal`, `id`, `deadline` and `settle` are per task. */
export type TaskDefaults = Pick<ScheduleOptions, 'timeout' | 'retry' | 'priority' | 'maxWait'>;

const TASK_DEFAULT_NAMES = ['timeout', 'retry', 'priority', 'maxWait'];

/** The defaults, checked, holding only the fields given; undefined when there are none. */
export function resolveTaskDefaults(defaults: unknown, features: TaskFeatures = {}): TaskDefaults | undefined {
  if (defaults === undefined) return undefined;
  if (typeof defaults !== 'object' || defaults === null) {
    throw new ThrottlerOptionError(
      'taskDefaults',
      "an object such as { timeout: '30s', retry: { retries: 2 } }",
      defaults,
    );
  }
  checkOptionNames(defaults, TASK_DEFAULT_NAMES, 'taskDefaults', false, features.optionHints);
  const { timeout, retry, priority, maxWait } = defaults as TaskDefaults;
  try {
    taskPlan({ timeout, retry }, false, features);
    checkPriority(priority);
    if (maxWait !== undefined) parseDuration(maxWait, 'maxWait');
  } catch (error) {
    throw asDefaultError(error);
  }
  const given: TaskDefaults = {
    ...(timeout === undefined ? {} : { timeout }),
    ...(retry === undefined ? {} : { retry }),
    ...(priority === undefined ? {} : { priority }),
    ...(maxWait === undefined ? {} : { maxWait }),
  };
  return Object.keys(given).length === 0 ? undefined : given;
}

/** A task's options over the defaults: what the task gives wins, field by field (a field left undefined is not given). */
export function withDefaults(defaults: TaskDefaults, options: ScheduleOptions): ScheduleOptions {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [name, value] of Object.entries(options)) if (value !== undefined) merged[name] = value;
  return merged as ScheduleOptions;
}

/** The error of a default's field, named as the user wrote it: `taskDefaults.retry.retries`. */
function asDefaultError(error: unknown): unknown {
  if (!(error instanceof ThrottlerOptionError)) return error;
  const named = new ThrottlerOptionError(`taskDefaults.${error.option}`, '', error.value);
  named.message = `taskDefaults.${error.message}`;
  return named;
}
