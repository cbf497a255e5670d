import type { FeatureValue } from '../engine/options/feature-value.js';
import { featureMissing } from '../engine/options/features-option.js';
import { monotonicNow, type ResolvedOptions } from '../engine/options/options.js';
import { MAX_TIMER_DELAY } from './effects.js';
import type { Clock } from './types.js';

/**
 * How long before its moment a precise wake-up hands over from the native
 * timer to event-loop turns. Node's timers count whole milliseconds on a loop
 * clock read once per turn, so one fires up to about a millisecond late, or
 * now and then early: 2 ms covers both.
 */
export const PRECISE_CLOCK_LEAD_MS = 2;

/**
 * A wake-up in progress: the native timer while far from the moment, then one
 * event-loop turn at a time (see {@link awaitTurn}).
 */
interface PreciseTimeout {
  /** The native timer (also a turn where neither setImmediate nor MessageChannel exists). */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Node's turn: a pending setImmediate. */
  immediate: ReturnType<typeof setImmediate> | undefined;
  /** A browser's turn: the channel whose next message is the next turn, open until the wake-up ends. */
  channel: MessageChannel | undefined;
  /** It must not hold the process open (`unrefTimeout`): every timer armed for it from then on is unref'd too. */
  released: boolean;
}

/**
 * An XState clock that calls back at the exact (fractional) moment, for the
 * throttler's `timerPrecision: 'exact'`: a native timer for all but the last
 * {@link PRECISE_CLOCK_LEAD_MS} ms, then event-loop turns (`setImmediate` in
 * Node, a `MessageChannel` message in browsers, so I/O, input and other
 * callbacks still run in between) until `now()` reaches the moment. Never
 * early; late only by one turn of the loop. The price is those turns: up to
 * about 2 ms of them per wake-up, which matters only for wake-ups a few
 * milliseconds apart.
 *
 * Why it matters with a strict sliding window: each message may go only once
 * the one `limit` places ahead of it has been gone a whole interval, so a
 * wake-up 1 ms late makes every later window 1 ms late too. This keeps what
 * each wake-up adds small (p99 0.2-0.3 ms in bench/README.md, W3, against up
 * to 1.2 ms with whole milliseconds); pauses of the process itself (garbage
 * collection, a busy machine) still carry forward.
 */
export function preciseClock(now: () => number = monotonicNow): Clock {
  return {
    setTimeout(callback: () => void, timeout: number): PreciseTimeout {
      const due = now() + timeout;
      const pending: PreciseTimeout = { timer: undefined, immediate: undefined, channel: undefined, released: false };
      const check = (): void => {
        pending.timer = undefined;
        pending.immediate = undefined;
        if (now() < due) {
          awaitTurn(pending, check);
          return;
        }
        closeChannel(pending);
        callback();
      };
      // The native timer for `coarse` ms, at most MAX_TIMER_DELAY at a time: a longer one fires at once,
      // and the turns after it would spin for the whole wait.
      const wait = (coarse: number): void => {
        const chunk = Math.min(MAX_TIMER_DELAY, coarse);
        pending.timer = setTimeout(chunk < coarse ? () => wait(coarse - chunk) : check, chunk);
        if (pending.released) pending.timer.unref?.();
      };
      const coarse = Math.floor(timeout - PRECISE_CLOCK_LEAD_MS);
      if (coarse >= 1) wait(coarse);
      else awaitTurn(pending, check);
      return pending;
    },
    clearTimeout(pending: PreciseTimeout | undefined): void {
      if (pending === undefined) return;
      if (pending.timer !== undefined) clearTimeout(pending.timer);
      if (pending.immediate !== undefined) clearImmediate(pending.immediate);
      pending.timer = undefined;
      pending.immediate = undefined;
      closeChannel(pending);
    },
  };
}

/**
 * Lets a pending timeout of these clocks, or a runtime's own timer handle (Node's, with `unref`), stop
 * holding the process open; it still fires if the process lives on. Any other handle is left as it is.
 */
export function unrefTimeout(handle: unknown): void {
  if (typeof handle !== 'object' || handle === null) return;
  const { unref, timer, turn, immediate } = handle as {
    unref?: unknown;
    timer?: { unref?: () => void };
    turn?: { unref?: () => void };
    immediate?: { unref?: () => void };
  };
  if (typeof unref === 'function') {
    unref.call(handle);
    return;
  }
  if ('released' in handle) (handle as PreciseTimeout).released = true;
  timer?.unref?.();
  turn?.unref?.();
  immediate?.unref?.();
}

/** A wake-up armed by {@link turnClock}: a native timer, or a turn of the loop for a zero delay. */
interface TurnTimeout {
  timer?: ReturnType<typeof setTimeout>;
  turn?: ReturnType<typeof setImmediate>;
}

/**
 * XState's clock (`setTimeout`), except that a zero delay waits for the next
 * turn of the event loop (`setImmediate`, after pending I/O) rather than for a
 * `setTimeout(0)`, which Node runs a millisecond later at the soonest. The
 * throttler arms a zero delay between slices of a backlog
 * (`maxDeliveriesPerTurn`): a millisecond a slice would cap a backlog at one
 * slice per millisecond. Without setImmediate (browsers), `setTimeout`.
 */
export function turnClock(): Clock {
  return {
    setTimeout(callback: () => void, timeout: number): TurnTimeout {
      if (timeout <= 0 && typeof setImmediate === 'function') return { turn: setImmediate(callback) };
      return { timer: setTimeout(callback, timeout) };
    },
    clearTimeout(pending: TurnTimeout | undefined): void {
      if (pending?.timer !== undefined) clearTimeout(pending.timer);
      if (pending?.turn !== undefined) clearImmediate(pending.turn);
    },
  };
}

/**
 * Calls `check` after one turn of the event loop. Node: `setImmediate`, which
 * runs once this turn's I/O is done. Browsers have no `setImmediate`: a
 * `MessageChannel` message is a task of its own, so input and rendering run in
 * between, where `queueMicrotask` would never yield (it starves the loop) and
 * a nested `setTimeout(0)` is clamped to 4 ms. Node has `MessageChannel` too,
 * but an open port keeps the process alive, hence `setImmediate` first; the
 * timer is the last resort of a runtime with neither. Looked up per turn, not
 * once, so that fake timers installed later are seen.
 */
function awaitTurn(pending: PreciseTimeout, check: () => void): void {
  if (typeof setImmediate === 'function') {
    pending.immediate = setImmediate(check);
    if (pending.released) pending.immediate.unref?.();
  } else if (typeof MessageChannel === 'function') {
    if (pending.channel === undefined) {
      pending.channel = new MessageChannel();
      pending.channel.port1.onmessage = check;
    }
    pending.channel.port2.postMessage(undefined);
  } else {
    pending.timer = setTimeout(check, 0);
  }
}

/** Closes a wake-up's channel: a message already posted is then never delivered. */
function closeChannel(pending: PreciseTimeout): void {
  if (pending.channel === undefined) return;
  pending.channel.port1.close();
  pending.channel.port2.close();
  pending.channel = undefined;
}

/** The exact-timers feature: the clock `timerPrecision: 'exact'` needs, {@link preciseClock}. */
export interface ExactTimersFeature extends FeatureValue<'exactTimers'> {
  readonly clock: (now: () => number) => Clock;
}

/**
 * The clock of `timerPrecision: 'exact'` ({@link preciseClock}) for the promise API, which arms its own
 * timer when given no `clock`: pass it in `features` to xstate-throttler/lean (the main entry loads it). The
 * machine's own `timerPrecision: 'exact'` needs none: its actor runs on the clock its creator gives.
 */
export const exactTimers: FeatureValue<'exactTimers'> = {
  feature: 'exactTimers',
  clock: preciseClock,
} as ExactTimersFeature;

/**
 * The clock the adapters arm the machine's timer on when the caller gave none:
 * `timerPrecision: 'exact'` needs one that keeps fractions of a millisecond (on
 * the same time source), which the exact-timers feature holds (in the options' features, or the entry's
 * own: `entryExact`); otherwise {@link turnClock}.
 */
export function clockFor(options: ResolvedOptions, entryExact?: FeatureValue<'exactTimers'>): Clock {
  if (options.timerPrecision !== 'exact') return turnClock();
  const exact = (options.features.exactTimers ?? entryExact) as ExactTimersFeature | undefined;
  if (exact === undefined)
    throw featureMissing('exactTimers', "timerPrecision: 'exact' without a clock", options.features);
  return exact.clock(options.now);
}
