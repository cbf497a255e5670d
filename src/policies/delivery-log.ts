/**
 * The recent deliveries a strict window needs: times in delivery order with
 * their cost, in a ring that grows by doubling, and a Fenwick tree of the costs
 * over the ring's slots, so that a settled delivery's cost can change in place
 * (an estimate replaced by the actual cost, `adjust`). Appending, dropping,
 * adjusting and finding where the newest deliveries add up to a given cost are
 * O(log n); nothing is O(n) but the ring's doubling (amortised O(1)).
 *
 * Entries are dropped from the old end once they are older than the longest
 * window (they can no longer hold anything back) or once more than
 * `maxEntries` of positive cost are kept (every positive cost is >= 1, so the
 * newest `limit` of them carry at least `limit` cost and older ones never
 * decide anything). An entry settled to cost 0 does not count towards
 * `maxEntries`: it stays until its time leaves the longest window.
 */
export class DeliveryLog {
  private times: Float64Array;
  private costs: Float64Array;
  /** Fenwick tree over the ring's slots (1-based): slot costs, 0 for a slot not in use. */
  private tree: Float64Array;
  private head = 0;
  private count = 0;
  /** Entries of cost 0 (settled so): not counted against `maxEntries`. */
  private zeros = 0;
  /** The cost of the entries kept. */
  private totalCost = 0;
  private maxEntries: number;

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
    const initial = Math.min(maxEntries, 16);
    this.times = new Float64Array(initial);
    this.costs = new Float64Array(initial);
    this.tree = new Float64Array(initial + 1);
  }

  get size(): number {
    return this.count;
  }

  /** The time of the newest entry; `-Infinity` when the log is empty. */
  get newestTime(): number {
    if (this.count === 0) return Number.NEGATIVE_INFINITY;
    return this.times[(this.head + this.count - 1) % this.times.length] as number;
  }

  /** Changes how many entries of positive cost are kept, keeping the newest. */
  setMaxEntries(maxEntries: number): void {
    this.maxEntries = maxEntries;
    while (this.count - this.zeros > maxEntries) this.dropOldest();
  }

  append(at: number, cost: number): void {
    while (this.count > 0 && this.count - this.zeros >= this.maxEntries) this.dropOldest();
    if (this.count === this.times.length) this.grow();
    const slot = (this.head + this.count) % this.times.length;
    this.times[slot] = at;
    this.costs[slot] = cost;
    this.addAt(slot, cost);
    this.totalCost += cost;
    if (cost === 0) this.zeros += 1;
    this.count += 1;
  }

  /**
   * Changes the cost logged at `at` by `delta` (an estimate replaced by the actual cost), O(log n). Several
   * entries at `at` count as one for every window: a saving comes off the newest of them, and off the ones
   * before it once that one is down to 0. Returns false when no entry is logged at `at` (forgotten, or let go
   * by count): the caller decides what an overrun then means.
   */
  adjust(at: number, delta: number): boolean {
    let index = this.lastIndexAt(at);
    if (index < 0) return false;
    let remaining = delta;
    const capacity = this.times.length;
    while (remaining !== 0 && index >= 0) {
      const slot = (this.head + index) % capacity;
      if ((this.times[slot] as number) !== at) break;
      const before = this.costs[slot] as number;
      const after = Math.max(0, before + remaining);
      this.setCost(slot, before, after);
      remaining -= after - before;
      index -= 1;
    }
    return true;
  }

  /**
   * Adds `cost` to the first entry logged at or after `at`, or logs it at `at` when every entry is older: an
   * overrun whose own entry is not in the log (let go by count, or never logged, a dimension its estimate left
   * at 0) goes where it holds back at least as long as at `at`. O(log n).
   */
  addAtOrAfter(at: number, cost: number): void {
    const capacity = this.times.length;
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.times[(this.head + mid) % capacity] as number) >= at) high = mid;
      else low = mid + 1;
    }
    if (low === this.count) {
      this.append(at, cost);
      return;
    }
    const slot = (this.head + low) % capacity;
    this.setCost(slot, this.costs[slot] as number, (this.costs[slot] as number) + cost);
  }

  /** The time of the oldest entry; `Infinity` when the log is empty. */
  get oldestTime(): number {
    return this.count === 0 ? Number.POSITIVE_INFINITY : (this.times[this.head] as number);
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
    // The first entry, oldest first, whose cost with every older one reaches totalCost - allowance.
    const threshold = this.totalCost - allowance;
    if (this.count === 0 || threshold <= 0) return Number.NEGATIVE_INFINITY;
    const beforeHead = this.prefix(this.head - 1);
    // The ring's first stretch is [head, end); a wrapped ring goes on at slot 0 (then beforeHead is that part).
    const firstStretch = this.totalCost - beforeHead;
    const slot =
      threshold <= firstStretch ? this.lowerBound(threshold + beforeHead) : this.lowerBound(threshold - firstStretch);
    return this.times[slot] as number;
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
    return this.totalCost - this.costBefore(low);
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

  /** The cost of the entries older than the `index`-th (oldest first). */
  private costBefore(index: number): number {
    if (index === 0) return 0;
    const slot = (this.head + index) % this.times.length;
    const beforeHead = this.prefix(this.head - 1);
    return slot > this.head ? this.prefix(slot - 1) - beforeHead : this.totalCost - beforeHead + this.prefix(slot - 1);
  }

  /** The index (oldest first) of the newest entry at `at`; -1 when none. */
  private lastIndexAt(at: number): number {
    const capacity = this.times.length;
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.times[(this.head + mid) % capacity] as number) > at) high = mid;
      else low = mid + 1;
    }
    const index = low - 1;
    return index >= 0 && this.times[(this.head + index) % capacity] === at ? index : -1;
  }

  private setCost(slot: number, before: number, after: number): void {
    if (before === after) return;
    this.costs[slot] = after;
    this.addAt(slot, after - before);
    this.totalCost += after - before;
    if (before === 0) this.zeros -= 1;
    if (after === 0) this.zeros += 1;
  }

  private dropOldest(): void {
    const slot = this.head;
    const cost = this.costs[slot] as number;
    this.addAt(slot, -cost);
    this.totalCost -= cost;
    if (cost === 0) this.zeros -= 1;
    this.costs[slot] = 0;
    this.head = (this.head + 1) % this.times.length;
    this.count -= 1;
    if (this.count === 0) {
      this.head = 0;
      // Costs are integers: the sums stay exact, and 0 once the log empties.
      this.totalCost = 0;
    }
  }

  private addAt(slot: number, delta: number): void {
    const tree = this.tree;
    for (let i = slot + 1; i < tree.length; i += i & -i) tree[i] = (tree[i] as number) + delta;
  }

  /** The cost of slots 0..slot (0 for slot -1). */
  private prefix(slot: number): number {
    let sum = 0;
    for (let i = slot + 1; i > 0; i -= i & -i) sum += this.tree[i] as number;
    return sum;
  }

  /** The first slot whose prefix (slots 0..slot) reaches `target` (> 0); costs are never negative. */
  private lowerBound(target: number): number {
    const tree = this.tree;
    const size = tree.length - 1;
    let position = 0;
    let remaining = target;
    let step = 1;
    while (step * 2 <= size) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = position + step;
      if (next <= size && (tree[next] as number) < remaining) {
        position = next;
        remaining -= tree[next] as number;
      }
    }
    return Math.min(position, size - 1);
  }

  private grow(): void {
    const capacity = this.times.length;
    // Entries of cost 0 do not count against maxEntries: the ring may then hold more.
    const nextCapacity = Math.max(Math.min(Math.max(capacity * 2, 16), this.maxEntries), this.count + 1);
    const times = new Float64Array(nextCapacity);
    const costs = new Float64Array(nextCapacity);
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % capacity;
      times[i] = this.times[slot] as number;
      costs[i] = this.costs[slot] as number;
    }
    this.times = times;
    this.costs = costs;
    this.head = 0;
    // Built in O(n): each node passes its sum up to its parent once.
    const tree = new Float64Array(nextCapacity + 1);
    for (let i = 1; i <= nextCapacity; i++) {
      tree[i] = (tree[i] as number) + (costs[i - 1] as number);
      const parent = i + (i & -i);
      if (parent <= nextCapacity) tree[parent] = (tree[parent] as number) + (tree[i] as number);
    }
    this.tree = tree;
  }
}
