/**
 * The checks every incoming event passes before it may change anything. Events
 * come from anywhere (another actor, a parsed request, a typo), so each field
 * is checked here, once, and a bad one is answered with a ThrottlerOptionError
 * that names it and its value; the machine reports it (`invalidEvent`, or
 * `rejected` for a message) and carries on with its queue intact.
 */
import type { AnyActorRef } from 'xstate';
import { ThrottlerOptionError } from '../rate/index.js';

/**
 * Whether a value is an actor ref the throttler can deliver to. Checked in full,
 * not just for a `send` method: the first delivery also reads the target's
 * status, and an object that only looks like a ref would crash the throttler there.
 */
export function isActorRef(value: unknown): value is AnyActorRef {
  if (typeof value !== 'object' || value === null) return false;
  const ref = value as Partial<AnyActorRef>;
  return (
    typeof ref.send === 'function' &&
    typeof ref.getSnapshot === 'function' &&
    typeof ref.sessionId === 'string' &&
    typeof ref.system === 'object' &&
    ref.system !== null
  );
}

/** Throws unless `target` is undefined or an actor ref. */
export function checkTarget(target: unknown, option = 'target'): AnyActorRef | undefined {
  if (target !== undefined && !isActorRef(target)) {
    throw new ThrottlerOptionError(option, 'an actor ref or undefined', target);
  }
  return target;
}

/**
 * The error for a queued message that cannot be delivered: the target receives
 * it as an event, so it must be an object with a string `type` (XState reads it
 * on arrival, and a machine target would fail on anything else).
 */
export function messageError(message: unknown, option = 'message'): ThrottlerOptionError | undefined {
  if (typeof message !== 'object' || message === null || typeof (message as { type?: unknown }).type !== 'string') {
    return new ThrottlerOptionError(option, 'an event object with a string type, e.g. { type: "call" }', message);
  }
  return undefined;
}

/** The error for a QUEUE_BATCH whose `messages` is not a list, or undefined when it is one. */
export function batchError(messages: unknown): ThrottlerOptionError | undefined {
  return Array.isArray(messages)
    ? undefined
    : new ThrottlerOptionError('messages', 'an array of { message, channel?, cost?, id? }', messages);
}

/** The error for a QUEUE_BATCH entry that is not an object at all (its message cannot even be named). */
export function batchEntryError(entry: unknown, index: number): ThrottlerOptionError | undefined {
  return typeof entry === 'object' && entry !== null
    ? undefined
    : new ThrottlerOptionError(`messages[${index}]`, 'an object { message, channel?, cost?, id? }', entry);
}

/** Checks a PAUSE event's fields; returns the time it pauses until (Infinity: until RESUME). */
export function pauseUntil(event: { until?: unknown; duration?: unknown }, now: number): number {
  const { until, duration } = event;
  if (until !== undefined && duration !== undefined) {
    throw new ThrottlerOptionError('until', 'left out when a duration is given (one or the other)', until);
  }
  if (until !== undefined) {
    if (typeof until !== 'number' || Number.isNaN(until) || until === Number.NEGATIVE_INFINITY) {
      throw new ThrottlerOptionError('until', 'a time in ms on the throttler clock', until);
    }
    return until;
  }
  if (duration !== undefined) {
    if (typeof duration !== 'number' || !(duration >= 0)) {
      throw new ThrottlerOptionError('duration', 'a duration >= 0 in ms', duration);
    }
    return now + duration;
  }
  return Number.POSITIVE_INFINITY;
}

/** Checks a TRY_ACQUIRE's `reply`: the one place its answer can go. */
export function replyError(reply: unknown): ThrottlerOptionError | undefined {
  return typeof reply === 'object' && reply !== null && !Object.isFrozen(reply)
    ? undefined
    : new ThrottlerOptionError('reply', 'a writable object that receives { waitMs } or { error }', reply);
}

/** Checks a message's `priority`: undefined (the default, 5) or an integer from 0 (goes last) to 9 (goes first). */
export function checkPriority(priority: unknown): number | undefined {
  if (priority === undefined) return undefined;
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > 9) {
    throw new ThrottlerOptionError('priority', 'an integer from 0 (goes last) to 9 (goes first), default 5', priority);
  }
  return priority;
}

/**
 * Checks a message's `deadline` (a time on the throttler's clock) and `maxWait` (ms from
 * `arrivedAt`), one or the other; returns the deadline, undefined for none (Infinity is none).
 */
export function checkDeadline(event: { deadline?: unknown; maxWait?: unknown }, arrivedAt: number): number | undefined {
  const { deadline, maxWait } = event;
  if (deadline !== undefined && maxWait !== undefined) {
    throw new ThrottlerOptionError('deadline', 'left out when a maxWait is given (one or the other)', deadline);
  }
  if (deadline !== undefined) {
    if (typeof deadline !== 'number' || !(deadline >= 0)) {
      throw new ThrottlerOptionError('deadline', 'a time >= 0 in ms on the throttler clock (its `now`)', deadline);
    }
    return deadline === Number.POSITIVE_INFINITY ? undefined : deadline;
  }
  if (maxWait !== undefined) {
    if (typeof maxWait !== 'number' || !(maxWait >= 0)) {
      throw new ThrottlerOptionError('maxWait', 'a wait >= 0 in ms', maxWait);
    }
    return maxWait === Number.POSITIVE_INFINITY ? undefined : arrivedAt + maxWait;
  }
  return undefined;
}

/**
 * Checks a SET_RATE's `channel` and `keyTemplate` (one or the other, or neither for the overall rates) and
 * names the option its rate's errors mention. Whether the channel is configured, or can be a key, is the
 * clearance's to say.
 */
export function rateScope(event: { channel?: unknown; keyTemplate?: unknown }): {
  channel: string | undefined;
  keyTemplate: boolean;
  option: string;
} {
  const { channel, keyTemplate } = event;
  if (keyTemplate !== undefined && keyTemplate !== true) {
    throw new ThrottlerOptionError('keyTemplate', "true (the keys' template rate) or left out", keyTemplate);
  }
  if (channel !== undefined && (typeof channel !== 'string' || keyTemplate === true)) {
    throw new ThrottlerOptionError('channel', 'a channel or key name, left out with keyTemplate', channel);
  }
  // A key is data, possibly long: the option an error names stays short.
  const named = channel === undefined ? 'rate' : channel.length <= 64 ? `channels.${channel}` : 'channels[key]';
  return { channel, keyTemplate: keyTemplate === true, option: keyTemplate === true ? 'keys.rate' : named };
}
