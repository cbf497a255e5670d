import { monotonicNow, type ResolvedOptions } from './options.js';
import type { Clock } from './types.js';

/**
 * How long before its moment a precise wake-up hands over from the native
 * timer to event-loop turns. Node's timers count whole milliseconds on a loop
 * clock read once per turn, so one fires up to about a millisecond late, or
 * now and then early: 2 ms covers both.
 */
export const PRECISE_CLOCK_LEAD_MS = 2;

/** A wake-up in progress: the native timer while far from the moment, then one setImmediate turn at a time. */
interface PreciseTimeout {
  timer: ReturnType<typeof setTimeout> | undefined;
  turn: ReturnType<typeof setImmediate> | undefined;
}

/**
 * An XState clock that calls back at the exact (fractional) moment, for the
 * throttler's `timerPrecision: 'exact'`: a native timer for all but the last
 * {@link PRECISE_CLOCK_LEAD_MS} ms, then event-loop turns (`setImmediate`,
 * so I/O and other callbacks still run in between) until `now()` reaches the
 * moment. Never early; late only by one turn of the loop. The price is those
 * turns: up to about 2 ms of them per wake-up, which matters only for wake-ups
 * a few milliseconds apart.
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
      const pending: PreciseTimeout = { timer: undefined, turn: undefined };
      const check = (): void => {
        pending.timer = undefined;
        pending.turn = undefined;
        if (now() >= due) callback();
        else pending.turn = setImmediate(check);
      };
      const coarse = Math.floor(timeout - PRECISE_CLOCK_LEAD_MS);
      if (coarse >= 1) pending.timer = setTimeout(check, coarse);
      else pending.turn = setImmediate(check);
      return pending;
    },
    clearTimeout(pending: PreciseTimeout | undefined): void {
      if (pending === undefined) return;
      if (pending.timer !== undefined) clearTimeout(pending.timer);
      if (pending.turn !== undefined) clearImmediate(pending.turn);
      pending.timer = undefined;
      pending.turn = undefined;
    },
  };
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
 * The clock the adapters arm the machine's timer on when the caller gave none:
 * `timerPrecision: 'exact'` needs one that keeps fractions of a millisecond (on
 * the same time source); otherwise {@link turnClock}.
 */
export function clockFor(options: ResolvedOptions): Clock {
  return options.timerPrecision === 'exact' ? preciseClock(options.now) : turnClock();
}
