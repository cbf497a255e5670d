import type { Rate } from '../rate/index.js';

/**
 * Pacing (the `pace` option): a window's quota spread over the window instead of let go in its first instant.
 * A delivery of cost c at t holds the next one back until t + c × span / limit, the largest over the rates,
 * where a rate's span is its interval, or a stated duration when shorter. A saturated sender then sends a
 * window's worth over the span, evenly, so the requests that reach a server never queue there as one burst
 * (a burst's own queueing would read as transit and widen every window). The span is the interval, not the
 * interval widened by the transit spread J: the window, counted J longer, holds the rest back (a pause of J
 * a window, the requests after it going as the ones a window earlier leave it, spaced as they were), so the
 * pace never binds below what the window allows, whatever an estimate still waiting for its settle holds.
 *
 * Pacing only ever waits longer than the window it sits beside: the window keeps the guarantee. Its answer
 * is one time that only a delivery or a settle moves, so permission stays monotone in time between them; it
 * keeps no history, so nothing is saved (a restored throttler paces from its first delivery on).
 */
export class Pacing {
  /** The longest span a window's worth is spread over, in ms: Infinity spreads it over the whole interval. */
  private readonly span: number;
  /** When the next delivery may go: a point of the pace's grid. */
  private nextAt = Number.NEGATIVE_INFINITY;
  /** The spacing the last delivery asked. */
  private lastGap = 0;

  constructor(span: number) {
    this.span = span;
  }

  /** The earliest time >= now the spacing allows. */
  earliest(now: number): number {
    return this.nextAt > now ? this.nextAt : now;
  }

  /**
   * A delivery of `cost` at `at`: the next waits its spacing, counted from the grid point this one was due
   * at, or from at most two spacings before `at`. What a late timer wake, or settles that gave back more than
   * was left to wait, would otherwise lose is caught up that far (on a busy machine a timer wakes several ms
   * late, and the pace would slow by that every delivery; a give-back comes a round trip after its request).
   * So over any run of deliveries the spacings add up, less two at most, and at most three go within a spacing.
   */
  recorded(at: number, cost: number, rates: readonly Rate[]): void {
    const gap = cost * this.spacingPerCost(rates);
    this.nextAt = Math.max(this.nextAt, at - CATCH_UP_SPACINGS * this.lastGap) + gap;
    this.lastGap = gap;
  }

  /**
   * A delivery's actual cost came `delta` off its estimate: the next waits that much less (or more) spacing,
   * so a window's worth is spread in what the deliveries cost, not in what they were expected to cost (an
   * estimate settled to 65% of itself would otherwise pace at 65% of the limit).
   */
  settled(delta: number, rates: readonly Rate[]): void {
    this.nextAt += delta * this.spacingPerCost(rates);
  }

  /** The time one unit of cost holds the next delivery back: the largest over the rates. */
  private spacingPerCost(rates: readonly Rate[]): number {
    let perCost = 0;
    for (const rate of rates) perCost = Math.max(perCost, Math.min(this.span, rate.interval) / rate.limit);
    return perCost;
  }
}

/**
 * How many spacings behind its grid a delivery may come and still be caught up: two (measured against the
 * mock providers in virtual time, test/examples/provider-pace.test.ts: one lost a point of the quota against
 * Anthropic, whose give-backs, a third of each estimate, come a round trip late; ten let 8 go in 100 ms).
 */
const CATCH_UP_SPACINGS = 2;
