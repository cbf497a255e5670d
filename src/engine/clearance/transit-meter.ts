import type { TransitSpread } from '../../policies/policy.js';
import { Deque } from '../queue/deque.js';

/** A task in flight, as the meter holds it: when it started, and whether its outcome came. */
export interface TransitTicket {
  readonly start: number;
  open: boolean;
}

/** A finished round trip: when its outcome came, and how long it took. */
interface RoundTrip {
  readonly end: number;
  readonly trip: number;
}

/**
 * The measured transit spread (`transit: 'measured'`): a request reaches the server between its send and its
 * answer, so its round trip (task start to outcome) bounds its uplink from above, and the largest recent round
 * trip bounds the uplink's spread J. A task still in flight bounds nothing yet: its age counts too. Capped by
 * `most` (the user's `max`), for calls whose answer takes long (an LLM's generation), whose round trip
 * overstates the uplink.
 *
 * The largest round trip of the last `horizon` + J ms (the sends a server's window may still hold) is a sliding
 * maximum over a monotonic deque, O(1) amortised per round trip; the oldest task in flight is the first open
 * ticket of another deque, O(1) amortised per task. `spreadAt` prunes what has left the horizon: a question
 * that may forget, never a clock read nor a timer.
 */
export class TransitMeter implements TransitSpread {
  readonly most: number;
  /** The longest interval in force when the meter was made: how far back a round trip still matters, plus J. */
  private readonly horizon: number;
  /** End times ascending, trips strictly descending: the front is the largest trip still in the horizon. */
  private readonly trips = new Deque<RoundTrip>();
  private readonly inFlight = new Deque<TransitTicket>();
  private spread = 0;

  constructor(horizon: number, most = Number.POSITIVE_INFINITY) {
    this.horizon = horizon;
    this.most = most;
  }

  /** A task started at `at`: its ticket, to hand back with its outcome. */
  started(at: number): TransitTicket {
    const ticket = { start: at, open: true };
    this.inFlight.push(ticket);
    return ticket;
  }

  /** The task of `ticket` had its outcome at `at` (an answer or an error: either way it reached the server or never will). */
  finished(ticket: TransitTicket, at: number): void {
    if (!ticket.open) return;
    ticket.open = false;
    while (this.inFlight.peekFirst()?.open === false) this.inFlight.shift();
    const trip = Math.max(0, at - ticket.start);
    let last = this.trips.peekLast();
    while (last !== undefined && last.trip <= trip) {
      this.trips.pop();
      last = this.trips.peekLast();
    }
    this.trips.push({ end: at, trip });
  }

  /** A task withdrawn before it was sent: it bounds nothing. */
  withdrawn(ticket: TransitTicket): void {
    ticket.open = false;
    while (this.inFlight.peekFirst()?.open === false) this.inFlight.shift();
  }

  /** J at `now`: the largest recent round trip or the oldest task's age in flight, at most `most`. */
  spreadAt(now: number): number {
    const cutoff = now - this.horizon - this.spread;
    let first = this.trips.peekFirst();
    while (first !== undefined && first.end < cutoff) {
      this.trips.shift();
      first = this.trips.peekFirst();
    }
    const oldest = this.inFlight.peekFirst();
    const age = oldest === undefined ? 0 : Math.max(0, now - oldest.start);
    this.spread = Math.min(this.most, Math.max(first?.trip ?? 0, age));
    return this.spread;
  }
}

/** A stated spread: the same J at every time. */
export function statedSpread(ms: number): TransitSpread {
  return { most: ms, spreadAt: () => ms };
}
