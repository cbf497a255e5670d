import type { Rate } from '../../rate/index.js';

/**
 * What one rate's audit found: the most cost any window of its interval has held, when, and how many
 * windows held more than its limit. Times are on the throttler's clock (`now`).
 */
export interface WindowFindings {
  /** The most cost (deliveries of cost 1 count 1) that any window of `interval` ms has held since the audit began. */
  most: number;
  /** The time of the delivery that closed that fullest window (the first such), or undefined before any delivery. */
  mostAt: number | undefined;
  /**
   * How many deliveries closed a window holding more than `limit`: each delivery at `t` closes the
   * window `(t - interval, t]`, holding it and every earlier delivery at `s` with `s + interval > t`.
   * 0 is the promise kept.
   */
  windowsOver: number;
}

/** A WindowAudit as plain data: JSON has no undefined, so a `mostAt` not yet known is null. */
export interface WindowAuditJSON {
  limit: number;
  interval: number;
  most: number;
  mostAt: number | null;
  windowsOver: number;
  times: number[];
  costs: number[];
  /** The rate's dimension (rates in dimensions only). */
  dimension?: string;
}

/**
 * One rate's audit over one scope (overall, a channel or a key): the deliveries of the last `interval`
 * ms, oldest first, with the cost they hold together. A delivery at `t` pushes itself and drops those at
 * or before `t - interval`; the window that ends at a delivery is the fullest that holds it as its
 * newest, so the fullest window of all is the fullest of these. O(1) amortised per delivery; memory is
 * the deliveries of one interval, with deliveries at the same time merged into one entry (at most one
 * entry per distinct time, so at most `limit` entries while the limit holds).
 */
export class WindowAudit implements WindowFindings {
  readonly limit: number;
  readonly interval: number;
  /** The dimension of its rate, if the rates are in dimensions. */
  readonly dimension: string | undefined;
  most = 0;
  mostAt: number | undefined = undefined;
  windowsOver = 0;
  /** A ring of (time, cost) pairs, the window's deliveries oldest first; its size is a power of two. */
  private times = new Float64Array(16);
  private costs = new Float64Array(16);
  /** What the window closed by each entry's (last) delivery held, so that a settle can judge it again. */
  private closed = new Float64Array(16);
  private mask = 15;
  private head = 0;
  private count = 0;
  /** The cost of the entries in the ring. */
  private held = 0;

  constructor(rate: Rate) {
    this.limit = rate.limit;
    this.interval = rate.interval;
    this.dimension = rate.dimension;
  }

  /** A delivery of `cost` at `at`; deliveries come in time order (the throttler's clock never runs back). */
  record(at: number, cost: number): void {
    // Written for the hot path (every delivery of every throttler): locals, one test before the loop.
    const times = this.times;
    if (this.count > 0 && (times[this.head] as number) + this.interval <= at) this.forgetBefore(at);
    const count = this.count;
    const newest = (this.head + count - 1) & this.mask;
    if (count > 0 && times[newest] === at) {
      this.costs[newest] = (this.costs[newest] as number) + cost;
    } else {
      if (count === times.length) this.grow();
      const slot = (this.head + count) & this.mask;
      this.times[slot] = at;
      this.costs[slot] = cost;
      this.count = count + 1;
    }
    const held = this.held + cost;
    this.held = held;
    this.closed[(this.head + this.count - 1) & this.mask] = held;
    if (held > this.most) {
      this.most = held;
      this.mostAt = at;
    }
    if (held > this.limit) this.windowsOver += 1;
  }

  /**
   * The delivery at `at` cost `delta` more than recorded (its estimate replaced by its actual cost; less when
   * negative): the entry at `at` takes it, and every window already closed that holds `at` is judged again,
   * counted over (or no longer over) as it crosses the limit. O(the entries since `at`, within one interval).
   * A delivery the ring no longer holds changes only the windows after it that do.
   */
  settle(at: number, delta: number): void {
    const { times, costs, closed, mask, limit } = this;
    let found = false;
    let newer = this.count;
    for (let i = this.count - 1; i >= 0; i -= 1) {
      const slot = (this.head + i) & mask;
      const time = times[slot] as number;
      if (time < at) break;
      if (time === at) {
        found = true;
        costs[slot] = (costs[slot] as number) + delta;
        this.held += delta;
      } else newer = i;
      if (at + this.interval <= time) continue;
      const before = closed[slot] as number;
      const after = before + delta;
      closed[slot] = after;
      if (before <= limit && after > limit) this.windowsOver += 1;
      else if (before > limit && after <= limit) this.windowsOver -= 1;
      if (after > this.most) {
        this.most = after;
        this.mostAt = time;
      }
    }
    if (!found && delta > 0) this.insert(newer, at, delta);
  }

  /**
   * A delivery at `at` the ring holds no entry for (its estimate was 0 in this rate's dimension), put in its
   * place, before entry `index`: it closes its own window, judged as `record` would. O(the entries since `at`).
   */
  private insert(index: number, at: number, cost: number): void {
    if (this.count === this.times.length) this.grow();
    const { times, costs, closed, mask } = this;
    for (let i = this.count; i > index; i -= 1) {
      const to = (this.head + i) & mask;
      const from = (this.head + i - 1) & mask;
      times[to] = times[from] as number;
      costs[to] = costs[from] as number;
      closed[to] = closed[from] as number;
    }
    let held = cost;
    for (let i = index - 1; i >= 0; i -= 1) {
      const slot = (this.head + i) & mask;
      if ((times[slot] as number) + this.interval <= at) break;
      held += costs[slot] as number;
    }
    const slot = (this.head + index) & mask;
    times[slot] = at;
    costs[slot] = cost;
    closed[slot] = held;
    this.count += 1;
    this.held += cost;
    if (held > this.most || (held === this.most && this.mostAt !== undefined && at < this.mostAt)) {
      this.most = held;
      this.mostAt = at;
    }
    if (held > this.limit) this.windowsOver += 1;
  }

  /** The audit as plain data (its findings and the window's deliveries, oldest first), for `fromJSON`. */
  toJSON(): WindowAuditJSON {
    const times: number[] = [];
    const costs: number[] = [];
    for (let i = 0; i < this.count; i += 1) {
      const slot = (this.head + i) & this.mask;
      times.push(this.times[slot] as number);
      costs.push(this.costs[slot] as number);
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
      ...(dimension === undefined ? {} : { dimension }),
    };
  }

  /** An audit carried on from `toJSON`'s data (a fleet audit kept in Redis between reads). */
  static fromJSON(json: WindowAuditJSON): WindowAudit {
    const { limit, interval, dimension } = json;
    const audit = new WindowAudit(dimension === undefined ? { limit, interval } : { limit, interval, dimension });
    for (const [index, at] of json.times.entries()) audit.record(at, json.costs[index] as number);
    audit.most = json.most;
    audit.mostAt = json.mostAt ?? undefined;
    audit.windowsOver = json.windowsOver;
    return audit;
  }

  /** Whether the window ending at `now` holds nothing: a key's audit may then be folded away. */
  isEmptyAt(now: number): boolean {
    this.forgetBefore(now);
    return this.count === 0;
  }

  /** Drops the deliveries that a window ending at `at` no longer holds (at or before `at - interval`). */
  private forgetBefore(at: number): void {
    // `t + interval <= at`, the policies' own arithmetic: a strict window sends its next message at
    // exactly `t + interval`, which `at - t >= interval` may round to just inside the window.
    while (this.count > 0 && (this.times[this.head] as number) + this.interval <= at) {
      this.held -= this.costs[this.head] as number;
      this.head = (this.head + 1) & this.mask;
      this.count -= 1;
    }
    // Costs are integers: the running total stays exact, and 0 once the ring empties.
    if (this.count === 0) this.held = 0;
  }

  private grow(): void {
    const capacity = this.times.length;
    const times = new Float64Array(capacity * 2);
    const costs = new Float64Array(capacity * 2);
    // Full: the ring is [head, capacity) then [0, head).
    times.set(this.times.subarray(this.head));
    times.set(this.times.subarray(0, this.head), capacity - this.head);
    costs.set(this.costs.subarray(this.head));
    costs.set(this.costs.subarray(0, this.head), capacity - this.head);
    const closed = new Float64Array(capacity * 2);
    closed.set(this.closed.subarray(this.head));
    closed.set(this.closed.subarray(0, this.head), capacity - this.head);
    this.times = times;
    this.costs = costs;
    this.closed = closed;
    this.mask = capacity * 2 - 1;
    this.head = 0;
  }
}
