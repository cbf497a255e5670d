/**
 * Which of an answer's events would change anything on a throttler, and in what form: the memory
 * applyServerLimits keeps per throttler. Answers to requests made side by side come back in any order,
 * and a PAUSE replaces the pause in force, so a PAUSE goes only if it ends later than the pause in force;
 * servers state their policy on every response, and the timer strategy restarts its period on every
 * SET_RATE, so a SET_RATE goes only if it changes the rates in force. Both are judged on what the
 * throttler holds when the answer comes (a RESUME, pause or rate set by hand is seen); what this memory
 * keeps is only for a throttler whose state cannot be read, and for an event sent while the throttler
 * was busy and still waiting in its mailbox.
 */
import { type Rate, ThrottlerOptionError } from '../rate/index.js';
import { ratesKey, underCeiling } from './ceiling.js';
import type { ThrottlerInForce } from './throttler-in-force.js';
import type { ServerPauseEvent, ServerRateEvent } from './types.js';

/** The last few rate sets this gate sent to one scope: rates in force among them are its own, not the user's. */
const REMEMBERED_RATE_SETS = 8;

interface ScopeMemory {
  /** The rates the user gave this scope (configured, or set by hand since): the default ceiling. */
  configured: readonly Rate[] | undefined;
  /** The rates last sent here, as `ratesKey` writes them. */
  lastSent: string | undefined;
  readonly sent: string[];
}

export class AnswerGate {
  /** When the last PAUSE sent ends, on the reader's clock. */
  private resumeAt = Number.NEGATIVE_INFINITY;
  /**
   * The last PAUSE was sent while the throttler was busy and waits in its mailbox. The mailbox is worked
   * through in the same synchronous stretch, so it is in force by the next microtask.
   */
  private pauseQueued = false;
  /** By channel (undefined: overall), then by dimension (undefined: a throttler without dimensions). */
  private readonly scopes = new Map<string | undefined, Map<string | undefined, ScopeMemory>>();

  constructor(readonly inForce: ThrottlerInForce | undefined) {}

  /** Whether `pause` (ending at `resumeAt` on the reader's clock) ends later than the pause in force. */
  extendsPause(pause: ServerPauseEvent, resumeAt: number): boolean {
    const { inForce } = this;
    if (inForce !== undefined && !this.pauseQueued) return inForce.now() + pause.duration > inForce.pausedUntil();
    return resumeAt > this.resumeAt;
  }

  /** Sends `pause` through `send` and remembers it. */
  sendPause(pause: ServerPauseEvent, resumeAt: number, send: (event: ServerPauseEvent) => void): void {
    const before = this.inForce?.pausedUntil();
    send(pause);
    this.resumeAt = resumeAt;
    // Unchanged: the throttler was busy and holds the PAUSE in its mailbox (a later answer is judged on it).
    if (before !== undefined && this.inForce?.pausedUntil() === before && !this.pauseQueued) {
      this.pauseQueued = true;
      queueMicrotask(() => {
        this.pauseQueued = false;
      });
    }
  }

  /**
   * The SET_RATE to send for `event`, its rates under the ceiling (the configured rates when
   * `keepConfigured`), or undefined when it would change nothing. On a throttler with rates in dimensions
   * the rates are `dimension`'s (what the listener's `dimension` option counts): judged against that
   * dimension's rates in force and sent labelled with it, so the throttler keeps its other dimensions'
   * (a plain SET_RATE it would refuse); nothing is sent to one that does not limit that dimension. Throws a
   * ThrottlerOptionError when the configured rates are asked for and the throttler does not show them.
   */
  rateEvent(event: ServerRateEvent, keepConfigured: boolean, dimension = 'requests'): ServerRateEvent | undefined {
    const dimensioned = this.inForce?.rates(undefined)?.some((one) => one.dimension !== undefined) === true;
    if (dimensioned && !this.inForce?.rates(undefined)?.some((one) => one.dimension === dimension)) return undefined;
    const scope = this.scope(event.channel, dimensioned ? dimension : undefined);
    const all = this.inForce?.rates(event.channel);
    const current = dimensioned ? all?.filter((one) => one.dimension === dimension) : all;
    const currentKey = current === undefined ? undefined : ratesKey(current);
    if (current !== undefined && currentKey !== undefined && !scope.sent.includes(currentKey)) {
      // Not rates this gate set: the user's, the ceiling from now on.
      scope.configured = current;
      scope.lastSent = undefined;
    }
    let rate = event.rate;
    if (keepConfigured) {
      // A throttler that does not have this scope refuses the SET_RATE itself, naming the channel.
      if (this.inForce === undefined) throw unreadable();
      if (scope.configured !== undefined) rate = underCeiling(event.rate, scope.configured);
    }
    const key = ratesKey(rate);
    if (key === currentKey || key === scope.lastSent) return undefined;
    if (dimensioned) rate = rate.map(({ limit, interval }) => ({ limit, interval, dimension }));
    return event.channel === undefined
      ? { type: 'SET_RATE', rate }
      : { type: 'SET_RATE', rate, channel: event.channel };
  }

  /** Sends `event` (what `rateEvent` returned) through `send` and remembers it. */
  sendRates(event: ServerRateEvent, send: (event: ServerRateEvent) => void): void {
    send(event);
    const scope = this.scope(event.channel, event.rate[0]?.dimension);
    scope.lastSent = ratesKey(event.rate);
    scope.sent.push(scope.lastSent);
    if (scope.sent.length > REMEMBERED_RATE_SETS) scope.sent.shift();
  }

  private scope(channel: string | undefined, dimension: string | undefined): ScopeMemory {
    let dimensions = this.scopes.get(channel);
    if (dimensions === undefined) {
      dimensions = new Map();
      this.scopes.set(channel, dimensions);
    }
    let scope = dimensions.get(dimension);
    if (scope === undefined) {
      scope = { configured: undefined, lastSent: undefined, sent: [] };
      dimensions.set(dimension, scope);
    }
    return scope;
  }
}

/** The default ceiling asked of a target that does not show its rates. */
export function unreadable(): ThrottlerOptionError {
  return new ThrottlerOptionError(
    'ceiling',
    "rates or 'none' for a target whose rates cannot be read (not a throttler actor nor createThrottler's throttler)",
    'configured',
  );
}
