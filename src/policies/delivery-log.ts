/**
 * The recent deliveries a strict window needs: times in delivery order with
 * their cost and a running total of cost, in a ring that grows by doubling up to
 * `maxEntries`. Appending is O(1) amortised; finding where the newest
 * deliveries add up to a given cost is a binary search, O(log n).
 *
 * Entries are dropped from the old end once they are older than the longest
 * window (they can no longer hold anything back) or once more than
 * `maxEntries` are kept (every cost is >= 1, so the newest `limit` entries carry
 * at least `limit` cost and older ones never decide anything).
 */
export class DeliveryLog {
  private times: Float64Array;
  private costs: Float64Array;
  /** Total cost of every delivery up to and including this one, since the log began. */
  private runningCost: Float64Array;
  private head = 0;
  private count = 0;
  private totalCost = 0;
  private maxEntries: number;

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
    const initial = Math.min(maxEntries, 16);
    this.times = new Float64Array(initial);
    this.costs = new Float64Array(initial);
    this.runningCost = new Float64Array(initial);
  }

  get size(): number {
    return this.count;
  }

  /** The time of the newest entry; `-Infinity` when the log is empty. */
  get newestTime(): number {
    if (this.count === 0) return Number.NEGATIVE_INFINITY;
    return this.times[(this.head + this.count - 1) % this.times.length] as number;
  }

  /** Changes how many entries are kept, keeping the newest. */
  setMaxEntries(maxEntries: number): void {
    this.maxEntries = maxEntries;
    while (this.count > maxEntries) this.dropOldest();
  }

  append(at: number, cost: number): void {
    if (this.count === this.maxEntries) this.dropOldest();
    if (this.count === this.times.length) this.grow();
    const slot = (this.head + this.count) % this.times.length;
    this.totalCost += cost;
    this.times[slot] = at;
    this.costs[slot] = cost;
    this.runningCost[slot] = this.totalCost;
    this.count += 1;
  }

  /** Forgets deliveries at or before `cutoff`. */
  forgetUpTo(cutoff: number): void {
    while (this.count > 0 && (this.times[this.head] as number) <= cutoff) this.dropOldest();
  }

  /**
   * The time of the newest delivery such that it and every newer one together
   * cost more than `allowance`; `-Infinity` when everything logged fits in it.
   * A delivery that must find at most `allowance` already in its window has to
   * wait until that time has left the window.
   */
  timeWhereCostExceeds(allowance: number): number {
    if (this.count === 0) return Number.NEGATIVE_INFINITY;
    const capacity = this.times.length;
    // Cost from entry i to the newest is totalCost - costBefore(i), with
    // costBefore(i) = runningCost[i] - costs[i]; it falls as i grows, so binary search.
    const threshold = this.totalCost - allowance;
    const oldest = this.head;
    if ((this.runningCost[oldest] as number) - (this.costs[oldest] as number) >= threshold) {
      return Number.NEGATIVE_INFINITY;
    }
    let low = 0;
    let high = this.count - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      const slot = (this.head + mid) % capacity;
      if ((this.runningCost[slot] as number) - (this.costs[slot] as number) < threshold) low = mid;
      else high = mid - 1;
    }
    return this.times[(this.head + low) % capacity] as number;
  }

  /** The cost of the deliveries after `cutoff` (times are appended in order): O(log n), a question. */
  costAfter(cutoff: number): number {
    const capacity = this.times.length;
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.times[(this.head + mid) % capacity] as number) > cutoff) high = mid;
      else low = mid + 1;
    }
    if (low === this.count) return 0;
    const slot = (this.head + low) % capacity;
    return this.totalCost - ((this.runningCost[slot] as number) - (this.costs[slot] as number));
  }

  /** Entries oldest first, as [time, cost] pairs (for saving). */
  entries(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    const capacity = this.times.length;
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % capacity;
      out.push([this.times[slot] as number, this.costs[slot] as number]);
    }
    return out;
  }

  private dropOldest(): void {
    this.head = (this.head + 1) % this.times.length;
    this.count -= 1;
    if (this.count === 0) this.head = 0;
  }

  private grow(): void {
    const capacity = this.times.length;
    const nextCapacity = Math.min(Math.max(capacity * 2, 16), this.maxEntries);
    const times = new Float64Array(nextCapacity);
    const costs = new Float64Array(nextCapacity);
    const runningCost = new Float64Array(nextCapacity);
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % capacity;
      times[i] = this.times[slot] as number;
      costs[i] = this.costs[slot] as number;
      runningCost[i] = this.runningCost[slot] as number;
    }
    this.times = times;
    this.costs = costs;
    this.runningCost = runningCost;
    this.head = 0;
  }
}
