/**
 * `throttleQueue(options)`: an RxJS operator that passes every value through,
 * in order, no faster than the rate, backed by one throttler actor per
 * subscription.
 *
 * Semantics:
 * - Emits: every source value, unchanged, at the moment the throttler delivers
 *   it; FIFO (or FIFO per channel with `ordering: 'per-channel'` and a
 *   `channel` function). Nothing is skipped: values wait in the queue.
 * - Completes: when the source has completed and every value has been emitted.
 * - Errors: a source error passes through at once, as with RxJS's own
 *   time-based operators, and the values still waiting are discarded with the
 *   subscription. With a bounded queue (`capacity`), a value rejected or dropped
 *   for overflow goes to `onDropped` if given, and otherwise errors the stream:
 *   a value is never lost quietly. A value past its `maxWait` goes to `onDropped`
 *   (required with `maxWait`) and the stream goes on. An `onDropped` that
 *   throws errors the stream with what it threw (the values still waiting
 *   are discarded with the subscription). An invalid `cost`,
 *   `channel`, `priority` or `maxWait` for a value errors the stream. With a store
 *   that refuses this configuration (another process created it with other
 *   options), the StoreConflictError errors the stream.
 * - Unsubscribing: stops the actor, which cancels its one timer; nothing is
 *   emitted after that.
 * - Values of one synchronous stretch reach the throttler together, as one
 *   QUEUE_BATCH event: in a microtask, or with `scheduler` in an action it
 *   schedules with no delay (a burst costs one transition, not one per value).
 *   Completion and errors send what is pending first, so they come after it.
 *   With a bounded queue (`capacity`) each value is its own QUEUE event, so
 *   overflow is decided value by value as it arrives.
 * - Time: with `scheduler`, both the timer and the time source come from it, so
 *   an RxJS TestScheduler runs it in virtual time (marble tests); without it,
 *   `setTimeout` and `performance.now()` (or the `now` option).
 * Options are validated when the operator is created; a bad one throws then.
 */
import { Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import type { InspectionEvent } from 'xstate';
import type { ThrottleStore } from '../engine/index.js';
import {
  type CommonOptions,
  checkOptionNames,
  optionHintsFeature,
  type ResolvedOptions,
  refuseMeasuredTransit,
  resolveOptions,
} from '../engine/index.js';
import type { Clock, ThrottlerActor } from '../machine/index.js';
import { checkStoreFits, clockFor, exactTimers, internalThrottlerMachine } from '../machine/index.js';
import { type DurationInput, ThrottlerOptionError } from '../rate/index.js';
import { type DiscardEvent, ThrottlerHost } from './host.js';
import type { DeferFlush } from './queue-batcher.js';

export interface ThrottleQueueOptions<T> extends CommonOptions {
  /** Share every rate with every process using a store of the same name (`createRedisStore`, xstate-throttler/redis). */
  store?: ThrottleStore | undefined;
  /** Where the timer and the time come from: pass the TestScheduler in marble tests. */
  scheduler?: SchedulerLike | undefined;
  /** The channel of a value (a name in `channels`), or undefined for the overall rate only. */
  channel?: ((value: T) => string | undefined) | undefined;
  /** How much of the limit a value spends (default 1), or per dimension: `{ requests: 1, tokens: n }`. */
  cost?: ((value: T) => number | { readonly [dimension: string]: number }) | undefined;
  /** A value's priority, 0 (goes last) to 9 (goes first), default 5 (see Priorities and deadlines). */
  priority?: ((value: T) => number | undefined) | undefined;
  /**
   * The most a value may wait, in ms or as a duration such as `'2s'` (undefined: no limit): one that cannot
   * go by then is dropped and handed to `onDropped` with a ThrottlerExpiredError, and the stream goes on.
   * Needs `onDropped`.
   */
  maxWait?: ((value: T) => DurationInput | undefined) | undefined;
  /** Receives every value that a full queue rejected or dropped (with `capacity`); without it, such a value errors the stream. */
  onDropped?: ((value: T, error: Error) => void) | undefined;
  /** Hands every inspection event of each subscription's throttler to an inspector (see `summarizeInspection`). */
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /**
   * Called with each subscription's throttler actor as it starts (e.g. to instrument it with
   * `xstate-throttler/otel`); what it returns, a function, is called when the subscription ends.
   */
  onThrottler?: ((actor: ThrottlerActor) => (() => void) | undefined | void) | undefined;
}

/** A value in the queue: the machine queues events, so each value travels in one. */
interface QueuedValue<T> {
  readonly type: 'value';
  readonly value: T;
}

/** A value's entry in a QUEUE_BATCH event. */
interface BatchEntry<T> {
  message: QueuedValue<T>;
  channel: string | undefined;
  cost: number | { readonly [dimension: string]: number } | undefined;
  priority?: number | undefined;
  maxWait?: DurationInput | undefined;
}

/** XState's clock on an RxJS scheduler: a timeout is a scheduled action, clearing it unsubscribes. */
function schedulerClock(scheduler: SchedulerLike): Clock {
  return {
    setTimeout: (fn, timeout) => scheduler.schedule(fn, timeout),
    clearTimeout: (subscription: Subscription) => subscription.unsubscribe(),
  };
}

/** throttleQueue's own options, on top of the common ones. */
const OPERATOR_OPTION_NAMES = [
  'store',
  'scheduler',
  'channel',
  'cost',
  'priority',
  'maxWait',
  'onDropped',
  'inspect',
  'onThrottler',
];

export function throttleQueue<T>(options: ThrottleQueueOptions<T>): OperatorFunction<T, T> {
  // Not an object at all: resolveOptions says what options are (before a string is spread into its characters).
  if (typeof options !== 'object' || options === null) resolveOptions(options);
  checkOptionNames(options, OPERATOR_OPTION_NAMES, 'throttleQueue', true, optionHintsFeature);
  const { scheduler, channel, cost, priority, maxWait, onDropped, inspect, onThrottler, ...throttleOptions } =
    options ?? ({} as ThrottleQueueOptions<T>);
  for (const [name, fn] of [
    ['channel', channel],
    ['cost', cost],
    ['priority', priority],
    ['maxWait', maxWait],
    ['onDropped', onDropped],
    ['inspect', inspect],
    ['onThrottler', onThrottler],
  ] as const) {
    if (fn !== undefined && typeof fn !== 'function') throw new ThrottlerOptionError(name, 'a function', fn);
  }
  if (maxWait !== undefined && onDropped === undefined) {
    // An expired value is the caller's own choice, not a failure: it must go somewhere other than an error.
    throw new ThrottlerOptionError(
      'onDropped',
      'a function when maxWait is given (expired values go to it)',
      onDropped,
    );
  }
  if (scheduler !== undefined && (typeof scheduler !== 'object' || typeof scheduler?.schedule !== 'function')) {
    throw new ThrottlerOptionError('scheduler', 'an RxJS scheduler', scheduler);
  }
  if (scheduler !== undefined && throttleOptions.now === undefined) throttleOptions.now = () => scheduler.now();
  const resolved = refuseMeasuredTransit(resolveOptions(throttleOptions), 'throttleQueue');
  checkStoreFits(throttleOptions.store, resolved);
  // A scheduler keeps its own time, whatever timerPrecision says.
  const clock = scheduler !== undefined ? schedulerClock(scheduler) : clockFor(resolved, exactTimers);
  // Values of a synchronous stretch go as one batch: in a microtask, or in an action of the scheduler.
  const deferFlush: DeferFlush | undefined = scheduler === undefined ? undefined : (flush) => scheduler.schedule(flush);

  return (source) =>
    new Observable<T>((subscriber) => {
      let waiting = 0;
      let sourceDone = false;
      const completeIfDrained = (): void => {
        if (sourceDone && waiting === 0) subscriber.complete();
      };
      const onDiscarded = (event: DiscardEvent): void => {
        waiting -= 1;
        if (event.type === 'rejected' && event.reason === 'invalid') {
          subscriber.error(event.error);
        } else if (onDropped !== undefined) {
          try {
            onDropped((event.message as QueuedValue<T>).value, event.error);
          } catch (error) {
            // The caller's own handler failed: the stream ends with its error, never an uncaught one.
            subscriber.error(error);
            return;
          }
          completeIfDrained();
        } else {
          subscriber.error(event.error);
        }
      };
      const host = new ThrottlerHost<BatchEntry<T>>({
        machine: internalThrottlerMachine,
        options: throttleOptions,
        resolved,
        clock,
        inspect,
        deliver: (queued) => {
          waiting -= 1;
          subscriber.next(queued.value);
          completeIfDrained();
        },
        discard: onDiscarded,
        deferFlush,
      });
      // What no waiting can mend errors the stream (failsOn).
      failsOn(host.actor, throttleOptions.store !== undefined, resolved, (error) => subscriber.error(error));
      let ended: (() => void) | undefined | void;
      try {
        ended = onThrottler?.(host.actor as unknown as ThrottlerActor);
      } catch (error) {
        host.stop();
        subscriber.error(error);
        return;
      }

      const subscription = source.subscribe({
        next: (value) => {
          const entry: BatchEntry<T> = { message: { type: 'value', value }, channel: undefined, cost: undefined };
          try {
            entry.channel = channel?.(value);
            entry.cost = cost?.(value);
            // Only what is asked for is set: the machine reads a missing field as none.
            if (priority !== undefined) entry.priority = priority(value);
            if (maxWait !== undefined) entry.maxWait = maxWait(value);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          waiting += 1;
          host.queue(entry);
        },
        error: (error: unknown) => {
          host.flush();
          subscriber.error(error);
        },
        complete: () => {
          host.flush();
          sourceDone = true;
          completeIfDrained();
        },
      });

      return () => {
        subscription.unsubscribe();
        host.stop();
        if (typeof ended === 'function') ended();
      };
    });
}

/**
 * A store that refuses this configuration (another process created it with other options), and a strategy of
 * one's own that broke its contract (`strategyError`): the stream fails with the error.
 */
function failsOn(actor: ThrottlerActor, withStore: boolean, resolved: ResolvedOptions, fail: (error: Error) => void) {
  if (withStore) actor.on('storeConflict', (event) => fail(event.error));
  if (resolved.strategyValue.own) actor.on('strategyError', (event) => fail(event.error));
}
