/**
 * What the promise API sends and reads besides its tasks: the SET_RATE a `setRate` sends (checked as
 * the machine would check it, but thrown at the call), the counts it reads from a snapshot, and the
 * errors of its own misuse.
 */
import {
  checkOptionNames,
  isKeyName,
  type OptionHintsFeature,
  type ResolvedOptions,
  unknownChannelError,
} from '../engine/index.js';
import type { MachineContext, MachineEvent, ThrottlerCounts, ThrottlerEvent } from '../machine/index.js';
import { rateScope } from '../machine/index.js';
import {
  type Cost,
  checkRateDimensions,
  costInput,
  type Dimensions,
  parseDuration,
  parseRates,
  type RatesInput,
  ThrottlerOptionError,
} from '../rate/index.js';
import type { StopOptions, Throttler } from './promise-api.js';

/** The SET_RATE for `setRate(rate, scope)`, checked as the machine would check it (it throws instead of reporting). */
export function rateEvent(rate: RatesInput, scope: unknown, resolved: ResolvedOptions): ThrottlerEvent {
  const keyTemplate = typeof scope === 'object' && scope !== null && (scope as { keyTemplate?: unknown }).keyTemplate;
  const { channel, option } = rateScope(
    keyTemplate === undefined || keyTemplate === false ? { channel: scope } : { keyTemplate },
  );
  if (keyTemplate === true && resolved.keys === undefined) {
    throw new ThrottlerOptionError('keyTemplate', 'set only with the keys option', keyTemplate);
  }
  checkRateDimensions(parseRates(rate, option), resolved.dimensions, option);
  const known =
    channel === undefined || resolved.channels.has(channel) || (resolved.keys !== undefined && isKeyName(channel));
  if (!known) throw unknownChannelError(channel, resolved.channels.keys(), resolved.keys !== undefined);
  return keyTemplate === true ? { type: 'SET_RATE', rate, keyTemplate: true } : { type: 'SET_RATE', rate, channel };
}

/** The published counts; none for an actor whose context never came to be (it errored as it started). */
export function countsOf(actor: Throttler['actor']): ThrottlerCounts {
  const counts = actor.getSnapshot().context?.counts as ThrottlerCounts | undefined;
  return counts === undefined ? { queued: 0, delivered: 0, dropped: 0, rejected: 0 } : { ...counts };
}

export function notATaskError(message: unknown): ThrottlerOptionError {
  return new ThrottlerOptionError(
    'message',
    'a task of this throttler (send work with throttler.schedule(), not a QUEUE to throttler.actor)',
    message,
  );
}

export function busyError(): Error {
  return new Error('tryAcquire() cannot be called while the throttler is delivering (from a task or actor.on)');
}

/** `pause(duration)`'s duration in ms: undefined (until resume), a number >= 0, or a string such as `'5s'`. */
export function pauseDuration(duration: unknown): number | undefined {
  if (duration === undefined) return undefined;
  if (typeof duration === 'string') return parseDuration(duration, 'pause(duration)');
  if (typeof duration !== 'number' || !(duration >= 0)) {
    throw new ThrottlerOptionError('pause(duration)', "a duration >= 0 in ms, or a string such as '5s'", duration);
  }
  return duration;
}

/** Whether `stop(options)` drains: `{ drain: true }`, or Bottleneck's `{ dropWaitingJobs: false }`. */
export function stopDrains(options: unknown, hints?: OptionHintsFeature): boolean {
  if (options === undefined) return false;
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('stop(options)', '{ drain?: boolean } or { dropWaitingJobs?: boolean }', options);
  }
  checkOptionNames(options, ['drain', 'dropWaitingJobs'], 'stop(options)', false, hints);
  const { drain, dropWaitingJobs } = options as StopOptions;
  if (drain !== undefined && typeof drain !== 'boolean') {
    throw new ThrottlerOptionError('stop(options).drain', 'true or false', drain);
  }
  if (dropWaitingJobs !== undefined && typeof dropWaitingJobs !== 'boolean') {
    throw new ThrottlerOptionError('stop(options).dropWaitingJobs', 'true or false', dropWaitingJobs);
  }
  if (drain !== undefined && dropWaitingJobs !== undefined && drain === dropWaitingJobs) {
    throw new ThrottlerOptionError(
      'stop(options).dropWaitingJobs',
      `left out, or the opposite of drain (${drain})`,
      dropWaitingJobs,
    );
  }
  return drain ?? dropWaitingJobs === false;
}

/** `stopDrains`, or the error a bad option rejects stop()'s promise with: stop() never throws (nothing stops then). */
export function stopDrainsOrRefusal(options: unknown, hints?: OptionHintsFeature): boolean | Error {
  try {
    return stopDrains(options, hints);
  } catch (error) {
    return error as Error;
  }
}

/** Whether a pause is in force, read from the machine's clearance. */
export function isPausedNow(actor: Throttler['actor']): boolean {
  const context = actor.getSnapshot().context as unknown as MachineContext | undefined;
  return context !== undefined && context.dispatcher.clearance.pausedUntil > context.now();
}

/** The `serverLimits` option: what serverLimits(...) of xstate-throttler/server-limits returns, or nothing. */
export function checkServerLimits(serverLimits: unknown): void {
  if (
    serverLimits !== undefined &&
    (typeof serverLimits !== 'object' ||
      serverLimits === null ||
      typeof (serverLimits as { bind?: unknown }).bind !== 'function')
  ) {
    throw new ThrottlerOptionError(
      'serverLimits',
      'what serverLimits(...) of xstate-throttler/server-limits returns',
      serverLimits,
    );
  }
}

/**
 * `tryAcquire`: TRY_ACQUIRE sent with a reply object the machine fills in at once. With settling tracked the
 * permit taken occupies its slot until settled, so it settles at once.
 */
export function tryAcquireNow(
  send: (event: ThrottlerEvent) => void,
  cost: number | { readonly [dimension: string]: number } | undefined,
  channel: string | undefined,
  reportsSettling: boolean,
): number {
  const reply: { waitMs?: number; error?: Error; cancelled?: boolean } = {};
  send({ type: 'TRY_ACQUIRE', cost, channel, reply });
  if (reply.error !== undefined) throw reply.error;
  if (reply.waitMs === undefined) {
    // The actor was busy (a call from an actor.on listener): it would answer later, to nobody.
    reply.cancelled = true;
    throw busyError();
  }
  if (reply.waitMs === 0 && reportsSettling) send({ type: 'SETTLED', channel, cost });
  return reply.waitMs;
}

/** A task's SETTLED with its cost as SETTLED reads it: once queued a task holds a vector per dimension, sent back by name. */
export function withCostByName(event: MachineEvent, dimensions: Dimensions | undefined): MachineEvent {
  if (event.type !== 'SETTLED' || !Array.isArray(event.cost)) return event;
  return { ...event, cost: costInput(event.cost as Cost, dimensions) };
}
