/**
 * The promise API's readers of its task state and the waits on it (`size`, `pending`, `runningTasks`,
 * `isRateLimited`, `isSaturated`, `onIdle`... `on` / `off`): each a counter, a snapshot or a promise
 * kept by task-activity.ts, task-runner.ts, rate-limit-watch.ts and task-events.ts, none of which sends
 * anything to the machine. promise.ts lays them onto the throttler it builds.
 */
import { featureMissing } from '../engine/index.js';
import type { Throttler } from './promise-api.js';
import type { RateLimitWatch } from './rate-limit-watch.js';
import type { TaskActivity } from './task-activity.js';
import type { TaskEvents } from './task-events.js';
import type { TaskRunner } from './task-runner.js';

export type TaskReaderNames =
  | 'size'
  | 'pending'
  | 'runningTasks'
  | 'isRateLimited'
  | 'isSaturated'
  | 'onIdle'
  | 'onEmpty'
  | 'onPendingZero'
  | 'onSizeLessThan'
  | 'onRateLimit'
  | 'onRateLimitCleared'
  | 'on'
  | 'off';

export interface TaskReaderParts {
  activity: TaskActivity;
  runner: TaskRunner;
  /** Undefined without the rate-limit-watch feature: its readers are refused, saying what to import. */
  rateLimits: RateLimitWatch | undefined;
  events: TaskEvents;
  maxConcurrent: number;
  /** The features loaded, for the refusal's list. */
  features: object;
}

/** The readers, as getters and methods over `parts` (getters: read at each access, never copied). */
export function taskReaders(parts: TaskReaderParts): Pick<Throttler, TaskReaderNames> {
  const { activity, runner, rateLimits, events, maxConcurrent, features } = parts;
  const watch = (reader: string): RateLimitWatch => {
    if (rateLimits === undefined) throw featureMissing('rateLimitWatch', reader, features);
    return rateLimits;
  };
  return {
    get size() {
      return activity.waiting;
    },
    get pending() {
      return activity.running;
    },
    get runningTasks() {
      return runner.runningTasks();
    },
    get isRateLimited() {
      return watch('isRateLimited').isRateLimited;
    },
    // Tasks wait and none may start now: every slot taken, or a rate holds them (a pause alone does not).
    get isSaturated() {
      const limits = watch('isSaturated');
      return activity.waiting > 0 && (activity.running >= maxConcurrent || limits.isRateLimited);
    },
    onIdle: () => activity.onIdle(),
    onEmpty: () => activity.onEmpty(),
    onPendingZero: () => activity.onPendingZero(),
    onSizeLessThan: (limit) => activity.onSizeLessThan(limit),
    onRateLimit: () => watch('onRateLimit()').onRateLimit(),
    onRateLimitCleared: () => watch('onRateLimitCleared()').onRateLimitCleared(),
    on: (event, handler) => {
      const limits = event === 'rateLimit' || event === 'rateLimitCleared' ? watch(`on('${event}')`) : undefined;
      events.on(event, handler);
      limits?.watch();
    },
    off: (event, handler) => events.off(event, handler),
  };
}
