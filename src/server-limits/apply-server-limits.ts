/**
 * Sending what `readServerLimits` found to a throttler: a machine actor (`send`) or the promise
 * API's throttler (`pause` / `setRate`).
 */
import { type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { AnswerGate } from './answer-gate.js';
import { overrunPause } from './overrun-pause.js';
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
 * alone, and needs `ceiling` rates or `'none'` for a SET_RATE. To a throttler with rates in dimensions the
 * SET_RATE carries the rates of `limits.dimension` only (`{ tokens: ... }`), and is not sent to one without
 * that dimension. A pause for a provider quota that is full again at its reset (OpenAI's, Anthropic's)
 * ends as soon as the throttler's own window for that quota first frees room, when that is sooner
 * (overrun-pause.ts). The promise API's `pause` and `setRate`
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
      const rates = gate.rateEvent(event, limits.keepsConfiguredRates !== false, limits.dimension);
      if (rates === undefined) continue;
      gate.sendRates(rates, deliver);
      done.push(rates);
    } else {
      // A spent quota that is full again at its reset has room sooner: see overrun-pause.ts.
      const pause = event === limits.pause ? overrunPause(limits, gate.inForce) : event;
      if (pause === undefined) continue;
      const resumeAt = (limits.resumeAt ?? Number.POSITIVE_INFINITY) - (event.duration - pause.duration);
      if (!gate.extendsPause(pause, resumeAt)) continue;
      gate.sendPause(pause, resumeAt, deliver);
      done.push(pause);
    }
  }
  return done;
}

export function senderFor(throttler: ServerLimitsTarget): (event: ServerPauseEvent | ServerRateEvent) => void {
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
