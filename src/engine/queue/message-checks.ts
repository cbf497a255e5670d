/**
 * The checks a message passes before it may wait or go: its event object, a batch's
 * shape, its priority and its deadline. Each bad field is answered with a
 * ThrottlerOptionError that names it and its value; the machine reports it
 * (`rejected`) and carries on, and a restore refuses a saved message by the same rules.
 */
import { parseDuration, ThrottlerOptionError } from '../../rate/index.js';

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
    // A string such as '2s' reads as any duration does; 0 and Infinity are waits only a number says.
    const wait = typeof maxWait === 'string' ? parseDuration(maxWait, 'maxWait') : maxWait;
    if (typeof wait !== 'number' || !(wait >= 0)) {
      throw new ThrottlerOptionError('maxWait', "a wait >= 0 in ms, or a duration such as '2s'", maxWait);
    }
    return wait === Number.POSITIVE_INFINITY ? undefined : arrivedAt + wait;
  }
  return undefined;
}
