import type { Rate } from '../rate/index.js';

/**
 * Pacing (the `pace` option): a window's quota spread over the window instead of let go in its first instant.
 * A delivery of cost c at t holds the next one back until t + c × span / limit, the largest over the rates,
 * where a rate's span is its interval widened by the transit spread J, or a stated duration when shorter. A
 * saturated sender then sends a window's worth over the span, evenly, so the requests that reach a server
 * never queue there as one burst (a burst's own queueing would read as transit and widen every window).
 *
 * Pacing only ever waits longer than the window it sits beside: the window keeps the guarantee. Its answer
 * is one time that only a delivery moves, so permission stays monotone in time; it keeps no history, so
 * nothing is saved (a restored throttler paces from its first delivery on).
 */
export class Pacing {
  /** The longest span a window's worth is spread over, in ms: Infinity spreads it over the whole (widened) window. */
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
   * A delivery of `cost` at `at`, the transit spread being `spread`: the next waits its spacing, counted from
   * the grid point this one was due at when it came less than a spacing after it (a timer wakes late, and
   * every late wake would otherwise slow the pace: on a busy machine by several ms a spacing), else from
   * `at` (the sender was idle). So over any run of deliveries the spacings add up, less one at most.
   */
  recorded(at: number, cost: number, rates: readonly Rate[], spread: number): void {
    let gap = 0;
    for (const rate of rates) {
      const span = Math.min(this.span, rate.interval + spread);
      gap = Math.max(gap, (cost * span) / rate.limit);
    }
    const onGrid = at < this.nextAt + this.lastGap;
    this.nextAt = (onGrid ? Math.max(at, this.nextAt) : at) + gap;
    this.lastGap = gap;
  }
}
