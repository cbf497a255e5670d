/**
 * The search behind `adaptive`: a server's limit per window found from its answers alone, when it states
 * none. Pure and clock-free: it is told each answer's time and whether it was a 429, and answers the limit
 * the throttler should hold from then on. Three numbers drive it:
 *
 * - `good`: the most the server was seen to accept in one window without refusing (0: not known);
 * - `bad`: the least the throttler was refused at, so the limit is below it (Infinity: not known);
 * - `limit`: what the throttler holds now, between `min` and `max`.
 *
 * Increase, while the limit binds (the answers accepted in the trailing window reach `limit`) and no
 * 429 came: with no bound known, double (a slow start, as TCP's, so that 5 reaches 500 in 7 rises);
 * with a bound, go halfway to it; at the bound (good and bad a step apart), probe one step above, once per
 * 3 windows' worth of answers when that is `PROBE_SPACING_MIN` to `PROBE_SPACING` answers, else once per
 * `PROBE_SPACING`: the 429s probes cost stay under 0.5% of the requests, and a limit that rose is found
 * within 3 windows wherever 0.5% allows it (from 67 a window: to be back within 3 windows any search must
 * probe every 3, a refusal per 3 * 67 + 1 requests). A probe accepted is believed at once when every
 * answer of its window came with it (answers to sends made together); otherwise once the answers before
 * it in its window were sent again, since a server counting fixed windows lets one more through when the
 * trailing window spans two of its own, and refuses one of those sent again. Then the limit rises by 1,
 * 2, 4... while answers are accepted, in the same window if they come at once, until the first refusal:
 * the edge, exact for a sliding window.
 * Decrease, on a 429: when the server had accepted at least `good` in the window, the refusal marks the
 * edge, and the accepted count is the limit (exact for a sliding window: the probe above it is undone);
 * when it accepted less, what held no longer holds, and the limit is halved (a multiplicative decrease,
 * once per window, since the 429s of sends already made say nothing new) and searched for again.
 */

/** Answers between two probes above the known limit: one refusal in 250 answers is 0.4%. */
export const PROBE_SPACING = 250;
/** The fewest answers between two probes: one refusal per 201 requests is 0.4975%, under 0.5%. */
export const PROBE_SPACING_MIN = 200;
/** Windows' worth of answers between two probes, when that is PROBE_SPACING_MIN to PROBE_SPACING answers. */
export const PROBE_INTERVALS = 3;

export class LimitSearch {
  /** The limit the throttler holds, per `window`. */
  limit: number;
  private good = 0;
  private bad = Number.POSITIVE_INFINITY;
  /** The times of the answers accepted in the trailing window, oldest first, from `head`. */
  private readonly accepted: number[] = [];
  private head = 0;
  private sinceProbe = 0;
  /** What the next rise adds while no bound is known: doubling from the start, from 1 after a probe is believed. */
  private step: number;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  /** After when the probe in progress (the limit at `bad`), once accepted, is believed; undefined before. */
  private probeBelievedAfter: number | undefined;
  /** The times of the 429s in the trailing window, oldest first, from `refusedHead`. */
  private readonly refusals: number[] = [];
  private refusedHead = 0;
  /**
   * A 429 came a little below what the server accepted before (by up to a quarter), one of few in its window:
   * the uplink's jitter, not the limit moving (a limit that fell refuses many in a window, most of them far
   * below). Until two probes in a row hold, the search steps,
   * one step down per such 429 and one up per probe, never doubling: it settles where 429s come about
   * once per probe spacing, which is the share of requests they cost.
   */
  private noisy = false;
  private cleanProbes = 0;

  constructor(
    private readonly min: number,
    private readonly max: number,
    private readonly interval: number,
    start: number,
  ) {
    this.limit = start;
    this.step = start;
    this.window = interval;
  }

  /**
   * The window answers are counted in: the interval, widened by the throttler's transit spread J, as its own
   * windows are (a throttler holding `limit` per interval + J never fills a window of the interval alone).
   */
  private window: number;

  /**
   * An answer at `time`, the throttler's transit spread being `spread` ms: the limit to hold from now, when it
   * or `paced` changes; undefined when neither does.
   */
  observe(time: number, refused: boolean, spread = 0): number | undefined {
    this.window = this.interval + spread;
    this.forget(time);
    const [before, pacedBefore] = [this.limit, this.noisy];
    if (refused) this.refused(time);
    else this.acceptedAt(time);
    return this.limit === before && this.noisy === pacedBefore ? undefined : this.limit;
  }

  /**
   * Whether the limit should be held evenly spaced (one request per window / limit): once the uplink's jitter
   * shows. A burst at a window's edge meets the late tail of the one a window before at the server; spaced
   * out, a window of the server's holds the limit give or take the sends at its two ends.
   */
  get paced(): boolean {
    return this.noisy;
  }

  /** What the search knows, for tests and logs. */
  get known(): { readonly good: number; readonly bad: number } {
    return { good: this.good, bad: this.bad };
  }

  private get acceptedCount(): number {
    return this.accepted.length - this.head;
  }

  private refused(time: number): void {
    this.sinceProbe = 0;
    this.cleanProbes = 0;
    // A probe in progress ends: undone at the edge, or the limit searched for again.
    this.probeBelievedAfter = undefined;
    this.refusals.push(time);
    const taken = this.acceptedCount;
    const refusedInWindow = this.refusals.length - this.refusedHead;
    if (this.good > 0 && taken >= this.good) {
      // The edge: the server took what held and refused one more. Never a rise: answers that came closer
      // together than they were sent (a round trip that varies) may outnumber the limit in a window.
      this.bad = Math.min(this.bad, taken + 1);
      this.set(Math.min(this.limit, Math.max(taken, this.good), this.bad - 1));
      // Under jitter an edge is no edge: a step down from it too, so that 429s stay about one per probe.
      if (this.noisy) this.stepDown();
    } else if (
      this.good > 0 &&
      taken >= this.good - Math.max(2, Math.ceil(this.good / 4)) &&
      refusedInWindow <= Math.max(2, Math.floor(this.limit / 4))
    ) {
      // Jitter: one step down, at the bound from then on.
      this.noisy = true;
      this.stepDown();
    } else if (time >= this.lastDecrease + this.window) {
      this.noisy = false;
      this.lastDecrease = time;
      this.bad = this.limit;
      this.good = 0;
      this.set(Math.floor(this.limit / 2));
    }
  }

  private acceptedAt(time: number): void {
    this.sinceProbe += 1;
    // Only as many as the largest limit can bind: a throttler set by hand above max needs no longer memory.
    if (this.acceptedCount <= this.max) this.accepted.push(time);
    if (this.acceptedCount < this.limit) return;
    this.good = Math.max(this.good, Math.min(this.limit, this.bad - 1));
    if (this.bad <= this.limit) {
      // The probe was accepted. A server counting fixed windows lets one more through when the trailing
      // window spans two of its own, which takes an answer accepted in it before this one: the probe is
      // believed once those were sent again, the fixed window being full then (at once when the window's
      // answers all came now, as answers to sends made together do).
      this.probeBelievedAfter ??= this.lastBefore(time) + this.window;
      if (time <= this.probeBelievedAfter) return;
      this.probeBelievedAfter = undefined;
      this.good = this.limit;
      this.cleanProbes += 1;
      if (this.noisy && this.cleanProbes < 3) {
        // Under jitter a probe often holds by chance: the next one a step above, not a climb.
        this.bad = this.limit + this.granularity();
        this.sinceProbe = 0;
        return;
      }
      // The limit rose past what was refused: rise from 1, doubling, so a wrong guess costs little.
      this.noisy = false;
      this.bad = Number.POSITIVE_INFINITY;
      this.step = 1;
    }
    if (this.bad === Number.POSITIVE_INFINITY) {
      this.set(this.limit + this.step);
      this.step = Math.max(1, this.step * 2);
    } else if (this.bad - this.good > this.granularity()) {
      this.set(Math.floor((this.limit + this.bad) / 2));
    } else if (this.sinceProbe >= this.probeSpacing() && this.limit < this.bad) {
      this.sinceProbe = 0;
      this.probeBelievedAfter = undefined;
      this.set(this.bad);
    }
  }

  /** One step below the limit, which is at the bound from then on (the next probe a step above). */
  private stepDown(): void {
    const step = this.granularity();
    this.set(this.limit - step);
    this.good = Math.min(this.good, this.limit);
    this.bad = Math.min(this.bad, this.limit + step);
  }

  /** How close `good` and `bad` are when the search is at the bound: 1, or 1% of what held. */
  private granularity(): number {
    return Math.max(1, Math.floor(this.good / 100));
  }

  /** Answers between probes: 3 windows' worth at `good` when that is 200 to 250, else 250. */
  private probeSpacing(): number {
    const answers = PROBE_INTERVALS * this.good;
    return answers >= PROBE_SPACING_MIN ? Math.min(PROBE_SPACING, answers) : PROBE_SPACING;
  }

  /** The time of the latest answer accepted in the trailing window before `time`; -Infinity if none. */
  private lastBefore(time: number): number {
    for (let index = this.accepted.length - 1; index >= this.head; index -= 1) {
      const at = this.accepted[index] as number;
      if (at < time) return at;
    }
    return Number.NEGATIVE_INFINITY;
  }

  private set(limit: number): void {
    this.limit = Math.min(this.max, Math.max(this.min, limit));
  }

  /** Drops the answers older than one window before `time`, compacting now and then (amortised O(1)). */
  private forget(time: number): void {
    const from = time - this.window;
    while (this.head < this.accepted.length && (this.accepted[this.head] as number) <= from) this.head += 1;
    while (this.refusedHead < this.refusals.length && (this.refusals[this.refusedHead] as number) <= from) {
      this.refusedHead += 1;
    }
    if (this.refusedHead > 1024 && this.refusedHead * 2 > this.refusals.length) {
      this.refusals.splice(0, this.refusedHead);
      this.refusedHead = 0;
    }
    if (this.head > 1024 && this.head * 2 > this.accepted.length) {
      this.accepted.splice(0, this.head);
      this.head = 0;
    }
  }
}
