/**
 * Where Redis' clock stands as seen from this process's clock, learned from the round trips a
 * throttler makes anyway: the interval in which a grant may be sent so that, on Redis' clock, it
 * goes no earlier than its time and no later than its time + grace.
 *
 * Each reply says what Redis' now was when the script ran, and the script ran somewhere between
 * the moment the call left and the moment its reply was handled; so the offset (Redis − local) lay
 * within [redisNow − arrivedAt, redisNow − askedAt]. One reply alone leaves an uncertainty of its
 * whole round trip, and a loaded process (a slow reply, a busy event loop) may take longer than
 * the grace: every grant of that reply would be unusable, given back and asked for again at the
 * back of the line (W6 drained at half the limit that way). Bounds from several replies intersect:
 * the uncertainty is that of the fastest recent round trip, not of this one.
 *
 * The two clocks may run at slightly different rates (NTP slews each by up to hundreds of ppm, and
 * two disciplined hosts keep within `MAX_DRIFT` of each other), so old bounds widen by that rate as
 * they age: a bound learned a second ago is worth `MAX_DRIFT` × 1 s less. A reply whose interval
 * misses the bounds altogether means a clock stepped (a user's `now` jumped, Redis failed over to
 * a host whose clock differs): what was learned is forgotten and the bounds start again from it.
 */

/** How far apart the rates of the two clocks may drift, as a fraction (100 ppm). */
export const MAX_DRIFT = 1e-4;

/**
 * The narrowest interval in which a grant is worth sending on the host's clock (the one timer counts
 * whole milliseconds): below it the link is too slow for the grace (`RedisClock.sendWindow`).
 */
export const MIN_SEND_WINDOW_MS = 2;
/**
 * Replies that must all leave less than that before the link counts as slow: a fleet starting on a
 * busy host has slow first replies (25-130 ms measured) and fast ones soon after, and until then
 * giving back and asking again keeps the host-clock promise (issue 22: with 2, nine processes
 * starting on two cores sent 13-26 of ~90 messages past the grace; with 4, as before: 0-2).
 */
export const SLOW_AFTER_REPLIES = 4;

/** A local interval in which a grant may go: never early, never later than its grace on Redis' clock. */
export interface SendWindow {
  readonly from: number;
  readonly until: number;
}

export class RedisClock {
  /** Bounds on the offset (Redis − local), valid at local time `learnedAt`. */
  private low = Number.NEGATIVE_INFINITY;
  private high = Number.POSITIVE_INFINITY;
  private learnedAt = Number.NEGATIVE_INFINITY;
  /** Replies the bounds were learned from (since a step): the first one's round trip includes connecting. */
  private replies = 0;

  /** `drift`: `MAX_DRIFT`, or 0 where Redis reads this process's own clock (a test clock). */
  constructor(private readonly drift: number = MAX_DRIFT) {}

  /** True once a reply has been learned from. */
  get known(): boolean {
    return this.learnedAt > Number.NEGATIVE_INFINITY;
  }

  /** A reply that left at `askedAt` and was handled at `arrivedAt` (local) said Redis' now was `redisNow`. */
  learn(askedAt: number, arrivedAt: number, redisNow: number): void {
    if (!(arrivedAt >= askedAt) || !Number.isFinite(redisNow)) return;
    // The offset at arrival: where it was while the script ran, widened by the drift since then.
    const low = redisNow - arrivedAt - this.drift * (arrivedAt - askedAt);
    const high = redisNow - askedAt + this.drift * (arrivedAt - askedAt);
    const agedLow = this.lowAt(arrivedAt);
    const agedHigh = this.highAt(arrivedAt);
    if (low > agedHigh || high < agedLow) {
      this.low = low;
      this.high = high;
      this.replies = 1;
    } else {
      this.replies += 1;
      this.low = Math.max(agedLow, low);
      this.high = Math.min(agedHigh, high);
    }
    this.learnedAt = Math.max(this.learnedAt, arrivedAt);
  }

  /**
   * Where a grant at `redisTime` (Redis' clock) may be sent: from the moment Redis' clock surely
   * reached it to the last moment it surely has not passed it by more than `graceMs` (Infinity with
   * no grace: strict on grant times only, however late). Empty (until < from) when the uncertainty
   * exceeds the grace. Both ends count the drift until the moment itself (the fixed points of
   * `t = redisTime − low + drift × (t − learnedAt)` and its upper twin), so asking again as the
   * moment comes gives the same answer until something new is learned.
   */
  window(redisTime: number, graceMs: number): SendWindow {
    const { drift, learnedAt } = this;
    if (!this.known) return { from: Number.POSITIVE_INFINITY, until: Number.NEGATIVE_INFINITY };
    const from = Math.max(redisTime - this.low, (redisTime - this.low - drift * learnedAt) / (1 - drift));
    if (graceMs === 0) return { from, until: Number.POSITIVE_INFINITY };
    const latest = redisTime + graceMs - this.high;
    const until = Math.min(latest, (latest + drift * learnedAt) / (1 + drift));
    return { from, until };
  }

  /**
   * Where a grant at `redisTime` is sent: `window` with the grace, as long as that leaves at least
   * `MIN_SEND_WINDOW_MS`. A link whose round trip is near or over the grace (a Redis tens of ms
   * away, TLS, a busy event loop) leaves less, or nothing, however often it asks again (`tooSlowFor`);
   * then the grace in use widens by the uncertainty: from the grant's time to the grace after that,
   * so at most grace + uncertainty late on Redis' clock, never early. The script spaced grants by
   * the grace only, so strictness then holds on Redis time (the grants'), not on the host's clock.
   */
  sendWindow(redisTime: number, graceMs: number): SendWindow {
    const window = this.window(redisTime, graceMs);
    if (window.until - window.from >= MIN_SEND_WINDOW_MS || !this.tooSlowFor(graceMs, window.from)) return window;
    return { from: window.from, until: window.from + graceMs };
  }

  /**
   * Whether the link is too slow for the grace at local time `at`: the fastest of at least
   * `SLOW_AFTER_REPLIES` replies (the first include connecting, loading the scripts and a cold
   * process, which later calls never pay) leaves less than `MIN_SEND_WINDOW_MS` of it.
   */
  tooSlowFor(graceMs: number, at: number): boolean {
    // A grace under twice the minimum: slow once the round trip takes half of it.
    const usable = graceMs - Math.min(MIN_SEND_WINDOW_MS, graceMs / 2);
    return graceMs > 0 && this.replies >= SLOW_AFTER_REPLIES && this.uncertainty(at) > usable;
  }

  /**
   * How wide the bounds on the offset are at local time `at`: the fastest recent round trip (what
   * one reply cannot narrow), widened by the drift since. Infinity before the first reply.
   */
  uncertainty(at: number): number {
    return this.highAt(at) - this.lowAt(at);
  }

  // Before the first reply nothing is known: the bounds are infinite (and 0 × Infinity would be NaN).
  private lowAt(at: number): number {
    if (!this.known) return Number.NEGATIVE_INFINITY;
    return this.low - this.drift * Math.max(0, at - this.learnedAt);
  }

  private highAt(at: number): number {
    if (!this.known) return Number.POSITIVE_INFINITY;
    return this.high + this.drift * Math.max(0, at - this.learnedAt);
  }
}
