/**
 * The promise API's readers of its task state and the waits on it (`size`, `pending`, `runningTasks`,
 * `isRateLimited`, `isSaturated`, `onIdle`... `on` / `off`): each a counter, a snapshot or a promise
 * kept by task-activity.ts, task-runner.ts, rate-limit-watch.ts and task-events.ts, none of which sends
 * anything to the machine. promise.ts lays them onto the throttler it builds.
 */
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
  rateLimits: RateLimitWatch;
  events: TaskEvents;
  maxConcurrent: number;
}

/** The readers, as getters and methods over `parts` (getters: read at each access, never copied). */
export function taskReaders(parts: TaskReaderParts): Pick<Throttler, TaskReaderNames> {
  const { activity, runner, rateLimits, events, maxConcurrent } = parts;
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
      return rateLimits.isRateLimited;
    },
    // Tasks wait and none may start now: every slot taken, or a rate holds them (a pause alone does not).
    get isSaturated() {
      return activity.waiting > 0 && (activity.running >= maxConcurrent || rateLimits.isRateLimited);
    },
    onIdle: () => activity.onIdle(),
    onEmpty: () => activity.onEmpty(),
    onPendingZero: () => activity.onPendingZero(),
    onSizeLessThan: (limit) => activity.onSizeLessThan(limit),
    onRateLimit: () => rateLimits.onRateLimit(),
    onRateLimitCleared: () => rateLimits.onRateLimitCleared(),
    on: (event, handler) => {
      events.on(event, handler);
      if (event === 'rateLimit' || event === 'rateLimitCleared') rateLimits.watch();
    },
    off: (event, handler) => events.off(event, handler),
  };
}
