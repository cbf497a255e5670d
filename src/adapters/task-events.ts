/**
 * The promise API's own events, `throttler.on(event, handler)` / `off`, named as p-queue names them:
 * what one task did (with its `id` when it was given one) and when the throttler's work ran out.
 * Each handler gets the arguments its event lists in `ThrottlerTaskEvents`, synchronously.
 *
 * A handler that throws (or an async one that rejects) breaks nothing: the other handlers still run, the
 * task's promise settles as it would have, and the throttler goes on. Its error is handed to the `onHandlerError` option, as the
 * serverLimits option hands a failed `pick` to its `onError`: by default `console.warn`, so it never
 * goes unseen and never becomes an uncaught error (which would end a Node process).
 */
import { ThrottlerOptionError } from '../rate/index.js';

/** A task's `id` (ScheduleOptions.id), as the events report it. */
export type TaskId = string | number;

/** Every event `throttler.on` takes, and the arguments its handlers receive. */
export interface ThrottlerTaskEvents {
  /** A task started (its function was called); each retry attempt too. */
  active: [id: TaskId | undefined];
  /** Nothing waits and nothing runs (`size` and `pending` are both 0). */
  idle: [];
  /** Nothing waits (`size` became 0); tasks may still run. */
  empty: [];
  /** A task's promise resolved, with this value. */
  completed: [value: unknown, id: TaskId | undefined];
  /** A task's promise rejected with what its function threw (after its last attempt), or a timeout. */
  error: [error: unknown, id: TaskId | undefined];
  /** A waiting task was taken out undelivered: expired, displaced by overflow, aborted, cleared or stopped. */
  dropped: [error: Error, id: TaskId | undefined];
  /** A task was refused as it arrived: a full queue (`overflow: 'reject'`) or a bad cost, channel or priority. */
  rejected: [error: Error, id: TaskId | undefined];
  /** A failed attempt will run again after `delay` ms; `attempt` is the number of the attempt to come (2 = first retry). */
  retry: [error: unknown, id: TaskId | undefined, retry: { attempt: number; delay: number }];
  /**
   * A retry is starting (just before its `active`): `waited` ms after the failure it retries, its backoff `delay` and
   * then its wait in line (for the limits, the tasks ahead of it, a pause); `attempt` as in `retry`.
   */
  retryStarted: [id: TaskId | undefined, retry: { attempt: number; delay: number; waited: number }];
  /** A rate began to hold waiting tasks back (`isRateLimited` became true). */
  rateLimit: [];
  /** No rate holds tasks back any more (`isRateLimited` became false): the queue emptied or the rate allows. */
  rateLimitCleared: [];
}

export type TaskEventName = keyof ThrottlerTaskEvents;

type Handler = (...args: never[]) => void;

const EVENT_NAMES: readonly TaskEventName[] = [
  'active',
  'idle',
  'empty',
  'completed',
  'error',
  'dropped',
  'rejected',
  'retry',
  'retryStarted',
  'rateLimit',
  'rateLimitCleared',
];

/** What a handler's failure is handed to: the `onHandlerError` option. */
export type HandlerErrorListener = (error: unknown, event: TaskEventName | 'settle') => void;

/** The default `onHandlerError`: seen, never uncaught. */
export function warnHandlerError(error: unknown, event: TaskEventName | 'settle'): void {
  console.warn(`xstate-throttler: a '${event}' handler threw (the throttler goes on):`, error);
}

export class TaskEvents {
  /** One set per event with handlers; an event nobody listens to costs a map lookup. */
  private readonly handlers = new Map<TaskEventName, Set<Handler>>();

  constructor(private readonly onHandlerError: HandlerErrorListener = warnHandlerError) {}

  on<E extends TaskEventName>(event: E, handler: (...args: ThrottlerTaskEvents[E]) => void): void {
    checkEvent(event, handler);
    let handlers = this.handlers.get(event);
    if (handlers === undefined) {
      handlers = new Set();
      this.handlers.set(event, handlers);
    }
    handlers.add(handler as Handler);
  }

  off<E extends TaskEventName>(event: E, handler: (...args: ThrottlerTaskEvents[E]) => void): void {
    checkEvent(event, handler);
    const handlers = this.handlers.get(event);
    if (handlers === undefined) return;
    handlers.delete(handler as Handler);
    if (handlers.size === 0) this.handlers.delete(event);
  }

  /** Hands a handler's (or a task's `settle`'s) error to `onHandlerError`; never throws. */
  report(error: unknown, event: TaskEventName | 'settle'): void {
    try {
      this.onHandlerError(error, event);
    } catch (reportError) {
      // The listener for failures failed too: both are shown, neither is thrown into the throttler.
      warnHandlerError(error, event);
      console.warn('xstate-throttler: onHandlerError threw as well:', reportError);
    }
  }

  /** Whether anyone listens: the caller skips building the arguments otherwise. */
  hears(event: TaskEventName): boolean {
    return this.handlers.size !== 0 && this.handlers.has(event);
  }

  emit<E extends TaskEventName>(event: E, ...args: ThrottlerTaskEvents[E]): void;
  /** The arguments are spelled out, not a rest parameter: an event nobody hears then allocates nothing. */
  emit(event: TaskEventName, first?: unknown, second?: unknown, third?: unknown): void {
    // Nobody listens to anything (the common case): not even a lookup, which every task paid for 'active'.
    if (this.handlers.size === 0) return;
    const handlers = this.handlers.get(event);
    if (handlers === undefined) return;
    // A copy when several listen: a handler may call off() (or on()) as it runs.
    for (const handler of handlers.size === 1 ? handlers : [...handlers]) {
      try {
        const result = (handler as (first: unknown, second: unknown, third: unknown) => unknown)(first, second, third);
        // An async handler's rejection goes the same way, never unhandled (which would end a Node process).
        if (isThenable(result)) result.then(undefined, (error: unknown) => this.report(error, event));
      } catch (error) {
        this.report(error, event);
      }
    }
  }
}

/** Whether a value is a promise or another thenable (a task's result, an async handler's). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function checkEvent(event: unknown, handler: unknown): void {
  if (!EVENT_NAMES.includes(event as TaskEventName)) {
    throw new ThrottlerOptionError('event', `one of ${EVENT_NAMES.map((name) => `"${name}"`).join(', ')}`, event);
  }
  if (typeof handler !== 'function') throw new ThrottlerOptionError('handler', 'a function', handler);
}
