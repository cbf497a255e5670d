/**
 * Sending what `readServerLimits` found to a throttler: a machine actor (`send`) or the promise
 * API's throttler (`pause` / `setRate`), and the listener the promise API's `serverLimits` option
 * runs after each task.
 */
import { describeValue, type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { AnswerGate, unreadable } from './answer-gate.js';
import type { ServerLimitsSource } from './header-fields.js';
import { type ReadServerLimitsOptions, resolveServerLimitsOptions } from './options.js';
import { readWithOptions } from './read-server-limits.js';
import { throttlerInForce } from './throttler-in-force.js';
import type { ServerLimits, ServerPauseEvent, ServerRateEvent } from './types.js';

/** The promise API's throttler, as far as the server's limits need it. */
export interface PausableThrottler {
  pause(ms?: number): void;
  setRate(rate: RatesInput, channel?: string): void;
}

/** A throttler machine actor (or any actor ref it should go to), as far as the server's limits need it. */
export interface ThrottlerRef {
  send(event: ServerPauseEvent | ServerRateEvent): void;
}

export type ServerLimitsTarget = PausableThrottler | ThrottlerRef;

/** Per throttler, held no longer than the throttler itself. */
const gates = new WeakMap<object, AnswerGate>();

/**
 * Sends the events of `limits` to `throttler`, SET_RATE first, and returns the ones it sent, as sent.
 * Judged on what the throttler holds now (answer-gate.ts), two are left out or changed: a PAUSE ending
 * no later than the pause in force (answers to requests made side by side come back in any order, and a
 * PAUSE replaces the pause in force, so a short one would cut a long one short; a pause until RESUME is
 * never cut), and a SET_RATE that would not change the rates in force (the timer strategy restarts its
 * period on every SET_RATE). With the default `ceiling` the SET_RATE keeps the rates the user gave the
 * throttler (not the ones this function set) beside the server's: a server can lower them, never raise
 * them. A RESUME, pause or rate set by hand is seen. A target whose state cannot be read (an actor ref
 * other than a throttler, an object with pause and setRate) is judged on what this function sent it
 * alone, and needs `ceiling` rates or `'none'` for a SET_RATE. The promise API's `pause` and `setRate`
 * throw after `stop()`; an actor drops events once stopped.
 */
export function applyServerLimits(
  throttler: ServerLimitsTarget,
  limits: ServerLimits,
): Array<ServerPauseEvent | ServerRateEvent> {
  const deliver = senderFor(throttler);
  const events: ServerLimits['events'] | undefined = limits?.events;
  if (!Array.isArray(events as unknown) || events === undefined)
    throw new ThrottlerOptionError('limits', 'what readServerLimits returned', limits);
  let gate = gates.get(throttler);
  if (gate === undefined) {
    gate = new AnswerGate(throttlerInForce(throttler));
    gates.set(throttler, gate);
  }
  const done: Array<ServerPauseEvent | ServerRateEvent> = [];
  for (const event of events) {
    if (event.type === 'SET_RATE') {
      // A hand-made ServerLimits without the field gets the safe default.
      const rates = gate.rateEvent(event, limits.keepsConfiguredRates !== false);
      if (rates === undefined) continue;
      gate.sendRates(rates, deliver);
      done.push(rates);
    } else {
      const resumeAt = limits.resumeAt ?? Number.POSITIVE_INFINITY;
      if (!gate.extendsPause(event, resumeAt)) continue;
      gate.sendPause(event, resumeAt, deliver);
      done.push(event);
    }
  }
  return done;
}

function senderFor(throttler: ServerLimitsTarget): (event: ServerPauseEvent | ServerRateEvent) => void {
  const target = throttler as Partial<PausableThrottler & ThrottlerRef> | null;
  if (typeof target === 'object' && target !== null) {
    const { pause, setRate, send } = target;
    if (typeof pause === 'function' && typeof setRate === 'function') {
      return (event) => {
        if (event.type === 'PAUSE') pause.call(target, event.duration);
        else setRate.call(target, event.rate, event.channel);
      };
    }
    if (typeof send === 'function') return (event) => send.call(target, event);
  }
  throw new ThrottlerOptionError('throttler', 'a throttler actor or the promise API throttler', throttler);
}

/** Picks the response out of a task's outcome: its value, or its error for clients that throw on a 429. */
export type ServerLimitsPick = (value: any, error?: unknown) => ServerLimitsSource | undefined | null;

/** Runs after a task: the error that kept the answer from being applied (a bug in `pick`, say), or undefined. */
export type ServerLimitsListener = (value: unknown, error?: unknown) => Error | undefined;

/**
 * What the promise API's `serverLimits` option runs after each task: `pick` the response out of the
 * task's value (or error), read it, apply it to `throttler`; nothing when `pick` returns anything
 * but an object (undefined, null, a number...). The options are checked now, once: a bad one throws
 * here, not after the first task. The listener itself never throws (it runs where a throw would
 * leave a task's promise unsettled): what would have been thrown, by `pick` or by the throttler (a
 * channel it does not have), is returned.
 */
export function serverLimitsListener(
  throttler: ServerLimitsTarget,
  pick: ServerLimitsPick,
  options?: ReadServerLimitsOptions,
): ServerLimitsListener {
  senderFor(throttler);
  if (typeof pick !== 'function') {
    throw new ThrottlerOptionError('serverLimits', 'a function picking the response out of a task result', pick);
  }
  const resolved = resolveServerLimitsOptions(options);
  if (resolved.followPolicy && resolved.ceiling === 'configured' && throttlerInForce(throttler) === undefined) {
    throw unreadable();
  }
  return (value, error) => {
    try {
      const response: unknown = pick(value, error);
      // A task that returned a number carries no answer: `(response) => response` suits every task.
      if (typeof response !== 'object' || response === null) return undefined;
      applyServerLimits(throttler, readWithOptions(response, resolved));
      return undefined;
    } catch (failure) {
      return failure instanceof Error ? failure : new Error(`serverLimits threw ${describeValue(failure)}`);
    }
  };
}

/** The options of `serverLimits`: readServerLimits' own, and where a failure to apply an answer goes. */
export interface ServerLimitsOptions extends ReadServerLimitsOptions {
  /**
   * Told when an answer could not be applied (a `pick` that threw, a channel the throttler lacks). The
   * task itself is not failed for it. Default: `console.warn`, so that a broken `pick` never goes unseen.
   */
  onError?: ((error: Error) => void) | undefined;
}

/**
 * The promise API's `serverLimits` option: `createThrottler({ rate, serverLimits: serverLimits() })`
 * reads every task's result (a fetch Response, or what `pick` picks out of the result or the error)
 * and applies the server's Retry-After / X-RateLimit / RateLimit answer to the throttler, before the
 * task's promise settles. Built here, not in the core, so that the core never loads the parsers.
 */
export function serverLimits(
  pick: ServerLimitsPick = (value) => value,
  options: ServerLimitsOptions = {},
): { bind(throttler: ServerLimitsTarget): (value: unknown, error?: unknown) => void } {
  const { onError = warn, ...readOptions } = options ?? {};
  if (typeof onError !== 'function') throw new ThrottlerOptionError('onError', 'a function', onError);
  // Checked now, once: a bad option throws here, not after the first task.
  resolveServerLimitsOptions(readOptions);
  if (typeof pick !== 'function') {
    throw new ThrottlerOptionError('serverLimits', 'a function picking the response out of a task result', pick);
  }
  return {
    bind(throttler) {
      const listen = serverLimitsListener(throttler, pick, readOptions);
      return (value, error) => {
        const failure = listen(value, error);
        if (failure !== undefined) onError(failure);
      };
    },
  };
}

function warn(error: Error): void {
  console.warn(`xstate-throttler serverLimits: the server's answer was not applied: ${error.message}`);
}
