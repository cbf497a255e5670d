import type { Rate } from '../../rate/index.js';
import type { AuditRetention, WindowAuditJSON, WindowFindings } from './window-findings.js';

export type { AuditRetention, WindowAuditJSON, WindowFindings } from './window-findings.js';

/** Keeps nothing past the window: an audit nobody settles (the fleet audit's). */
const WINDOW_ONLY: AuditRetention = { from: Infinity };

/**
 * One rate's audit over one scope (overall, a channel or a key). Deliveries at one time merge into one entry
 * (its total cost, how many, and what the window it closes holds), oldest first in a ring. The window that
 * ends at a delivery is the fullest that holds it as its newest, so the fullest window of all is the fullest
 * of these. O(1) amortised per delivery. The ring keeps the entries of the window and, for a settle, those a
 * window of a delivery still settleable could hold (`retention`): a settle finds its entry by binary search
 * and judges again the windows after it within one interval, however long ago it went.
 */
export class WindowAudit implements WindowFindings {
  readonly limit: number;
  readonly interval: number;
  /** The dimension of its rate, if the rates are in dimensions. */
  readonly dimension: string | undefined;
  most = 0;
  mostAt: number | undefined = undefined;
  windowsOver = 0;
  /** The fullest window among the entries the ring dropped (they can no longer change), and when. */
  private droppedMost = 0;
  private droppedMostAt: number | undefined = undefined;
  /** The time of the newest entry dropped. */
  private droppedThrough = -Infinity;
  /** A ring of entries oldest first (time, total cost, deliveries, what the window it closes holds); size a power of two. */
  private times = new Float64Array(16);
  private costs = new Float64Array(16);
  private counts = new Float64Array(16);
  private closed = new Float64Array(16);
  private mask = 15;
  private head = 0;
  private count = 0;
  /** Entries at the ring's front kept for settles only: outside the window that ends at `windowAt`. */
  private outside = 0;
  private windowAt = -Infinity;
  /** The cost of the entries in the window. */
  private held = 0;
  private readonly retention: AuditRetention;

  constructor(rate: Rate, retention: AuditRetention = WINDOW_ONLY) {
    this.limit = rate.limit;
    this.interval = rate.interval;
    this.dimension = rate.dimension;
    this.retention = retention;
  }

  /** A delivery of `cost` at `at`; deliveries come in time order (the throttler's clock never runs back). */
  record(at: number, cost: number): void {
    // Written for the hot path (every delivery of every throttler): one test before the loops.
    if (this.count > 0 && (this.times[(this.head + this.outside) & this.mask] as number) + this.interval <= at)
      this.moveWindow(at);
    this.windowAt = at;
    const count = this.count;
    const newest = (this.head + count - 1) & this.mask;
    const held = this.held + cost;
    this.held = held;
    if (count > this.outside && this.times[newest] === at) {
      const deliveries = (this.counts[newest] as number) + 1;
      this.costs[newest] = (this.costs[newest] as number) + cost;
      this.counts[newest] = deliveries;
      const before = this.closed[newest] as number;
      this.closed[newest] = held;
      // Every delivery at `at` closes the same window: one that crosses the limit takes them all over.
      if (before > this.limit) this.windowsOver += 1;
      else if (held > this.limit) this.windowsOver += deliveries;
    } else {
      if (count === this.times.length) this.grow();
      const slot = (this.head + count) & this.mask;
      this.times[slot] = at;
      this.costs[slot] = cost;
      this.counts[slot] = 1;
      this.closed[slot] = held;
      this.count = count + 1;
      if (held > this.limit) this.windowsOver += 1;
    }
    if (held > this.most) {
      this.most = held;
      this.mostAt = at;
    }
  }

  /**
   * The delivery at `at` cost `delta` more than recorded (its estimate replaced by its actual cost; less when
   * negative), and `deliveries` (-1, 0 or 1) more deliveries at `at` count in this rate (a dimension the
   * estimate or the actual cost left at 0). Every window that holds `at` is judged again: the windows over
   * and the fullest are what they would be had the delivery cost this from the start. The entry is found by
   * binary search; O(log entries + the entries within one interval after `at`). A delivery older than the
   * ring keeps (its retention) changes nothing.
   */
  settle(at: number, delta: number, deliveries = 0): void {
    const index = this.search(at);
    const found = index < this.count && this.times[(this.head + index) & this.mask] === at;
    if (!found) {
      // Not counted in this rate (or dropped from the ring: then no window it could change is kept).
      if (delta <= 0 || deliveries <= 0 || at <= this.droppedThrough) return;
      this.insert(index, at);
    }
    const { times, costs, counts, closed, mask, limit } = this;
    const first = (this.head + index) & mask;
    const before = counts[first] as number;
    counts[first] = before + deliveries;
    costs[first] = (costs[first] as number) + delta;
    if (index >= this.outside) this.held += delta;
    let lowered = false;
    for (let i = index; i < this.count; i += 1) {
      const slot = (this.head + i) & mask;
      const time = times[slot] as number;
      if (at + this.interval <= time) break;
      const was = closed[slot] as number;
      const now = was + delta;
      closed[slot] = now;
      const wasCount = i === index ? before : (counts[slot] as number);
      const nowCount = counts[slot] as number;
      this.windowsOver += (now > limit ? nowCount : 0) - (was > limit ? wasCount : 0);
      if (nowCount === 0) lowered ||= this.mostAt === time;
      else if (now > this.most || (now === this.most && time < (this.mostAt as number))) {
        this.most = now;
        this.mostAt = time;
      } else if (was === this.most && time === this.mostAt && now < was) lowered = true;
    }
    if (lowered) this.findMost();
  }

  /** The index of the first entry at or after `at` (binary search over the ring's times). */
  private search(at: number): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.times[(this.head + middle) & this.mask] as number) < at) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * An empty entry at `at` before entry `index` (a delivery this rate did not count, its estimate 0 in the
   * rate's dimension): what its window holds is the entries before it within one interval. O(the entries after it).
   */
  private insert(index: number, at: number): void {
    if (this.count === this.times.length) this.grow();
    const { times, costs, counts, closed, mask } = this;
    for (let i = this.count; i > index; i -= 1) {
      const to = (this.head + i) & mask;
      const from = (this.head + i - 1) & mask;
      times[to] = times[from] as number;
      costs[to] = costs[from] as number;
      counts[to] = counts[from] as number;
      closed[to] = closed[from] as number;
    }
    let held = 0;
    for (let i = index - 1; i >= 0; i -= 1) {
      const slot = (this.head + i) & mask;
      if ((times[slot] as number) + this.interval <= at) break;
      held += costs[slot] as number;
    }
    const slot = (this.head + index) & mask;
    times[slot] = at;
    costs[slot] = 0;
    counts[slot] = 0;
    closed[slot] = held;
    this.count += 1;
    if (at + this.interval <= this.windowAt) this.outside += 1;
  }

  /** The fullest window again, after a settle lowered the one that was: the dropped entries' and each kept one's. */
  private findMost(): void {
    let most = this.droppedMost;
    let mostAt = this.droppedMostAt;
    for (let i = 0; i < this.count; i += 1) {
      const slot = (this.head + i) & this.mask;
      const held = this.closed[slot] as number;
      if ((this.counts[slot] as number) > 0 && held > most) {
        most = held;
        mostAt = this.times[slot] as number;
      }
    }
    this.most = most;
    this.mostAt = mostAt;
  }

  /** The audit as plain data (its findings and the window's deliveries, oldest first), for `fromJSON`. */
  toJSON(): WindowAuditJSON {
    const times: number[] = [];
    const costs: number[] = [];
    const counts: number[] = [];
    for (let i = this.outside; i < this.count; i += 1) {
      const slot = (this.head + i) & this.mask;
      times.push(this.times[slot] as number);
      costs.push(this.costs[slot] as number);
      counts.push(this.counts[slot] as number);
    }
    const { limit, interval, most, mostAt, windowsOver, dimension } = this;
    return {
      limit,
      interval,
      most,
      mostAt: mostAt ?? null,
      windowsOver,
      times,
      costs,
      ...(counts.some((one) => one !== 1) ? { counts } : {}),
      ...(dimension === undefined ? {} : { dimension }),
    };
  }

  /** An audit carried on from `toJSON`'s data (a fleet audit kept in Redis between reads). */
  static fromJSON(json: WindowAuditJSON): WindowAudit {
    const { limit, interval, dimension } = json;
    const audit = new WindowAudit(dimension === undefined ? { limit, interval } : { limit, interval, dimension });
    for (const [index, at] of json.times.entries()) {
      audit.record(at, json.costs[index] as number);
      const slot = (audit.head + audit.count - 1) & audit.mask;
      audit.counts[slot] = json.counts?.[index] ?? 1;
    }
    audit.most = json.most;
    audit.mostAt = json.mostAt ?? undefined;
    audit.droppedMost = json.most;
    audit.droppedMostAt = audit.mostAt;
    audit.windowsOver = json.windowsOver;
    return audit;
  }

  /** Nothing more comes to it (its rate was replaced): the ring is let go, the findings kept. */
  close(): void {
    this.head = 0;
    this.count = 0;
    this.outside = 0;
    this.held = 0;
    if (this.times.length > 16) {
      this.times = new Float64Array(16);
      this.costs = new Float64Array(16);
      this.counts = new Float64Array(16);
      this.closed = new Float64Array(16);
      this.mask = 15;
    }
  }

  /** Whether the ring holds nothing at `now` (no window, nothing kept for a settle): a key's audit may then be folded away. */
  isEmptyAt(now: number): boolean {
    if (this.count > 0 && now > this.windowAt) {
      this.moveWindow(now);
      this.windowAt = now;
    }
    return this.count === 0;
  }

  /**
   * The window now ends at `at`: entries it no longer holds (at or before `at - interval`) leave it, and
   * those no settle can reach any more leave the ring.
   */
  private moveWindow(at: number): void {
    // `t + interval <= at`, the policies' own arithmetic: a strict window sends its next message at
    // exactly `t + interval`, which `at - t >= interval` may round to just inside the window.
    const { interval, mask } = this;
    while (this.outside < this.count) {
      const slot = (this.head + this.outside) & mask;
      if ((this.times[slot] as number) + interval > at) break;
      this.held -= this.costs[slot] as number;
      this.outside += 1;
    }
    // Costs are integers: the running total stays exact, and 0 once the window empties.
    if (this.outside === this.count) this.held = 0;
    const keepAfter = Math.min(at, this.retention.from);
    while (this.outside > 0 && (this.times[this.head] as number) + interval <= keepAfter) {
      const held = this.closed[this.head] as number;
      if ((this.counts[this.head] as number) > 0 && held > this.droppedMost) {
        this.droppedMost = held;
        this.droppedMostAt = this.times[this.head] as number;
      }
      this.droppedThrough = this.times[this.head] as number;
      this.head = (this.head + 1) & mask;
      this.count -= 1;
      this.outside -= 1;
    }
  }

  private grow(): void {
    const capacity = this.times.length;
    const copy = (ring: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
      // Full: the ring is [head, capacity) then [0, head).
      const bigger = new Float64Array(capacity * 2);
      bigger.set(ring.subarray(this.head));
      bigger.set(ring.subarray(0, this.head), capacity - this.head);
      return bigger;
    };
    this.times = copy(this.times);
    this.costs = copy(this.costs);
    this.counts = copy(this.counts);
    this.closed = copy(this.closed);
    this.mask = capacity * 2 - 1;
    this.head = 0;
  }
}
