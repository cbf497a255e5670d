/**
 * The checks every incoming control event passes before it may change anything (a message's own
 * checks are the engine's, src/engine/queue/message-checks.ts). Events
 * come from anywhere (another actor, a parsed request, a typo), so each field
 * is checked here, once, and a bad one is answered with a ThrottlerOptionError
 * that names it and its value; the machine reports it (`invalidEvent`, or
 * `rejected` for a message) and carries on with its queue intact.
 */
import type { AnyActorRef } from 'xstate';
import { parseDuration, ThrottlerOptionError } from '../rate/index.js';

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
    // A string reads as any duration does ('5s'); 0 and Infinity are only said as numbers.
    const ms = typeof duration === 'string' ? parseDuration(duration, 'duration') : duration;
    if (typeof ms !== 'number' || !(ms >= 0)) {
      throw new ThrottlerOptionError('duration', "a duration >= 0 in ms, or a string such as '5s'", duration);
    }
    return now + ms;
  }
  return Number.POSITIVE_INFINITY;
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
