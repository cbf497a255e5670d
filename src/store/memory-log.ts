/**
 * One scope's grants in one dimension, for the memory store: what a Redis sorted set is to the scripts
 * (lua/reserve.ts). Entries in time order, each with the running total of cost up to it, so that "the
 * newest grant at which the cost counted back from the newest first exceeds limit - cost" is a binary
 * search: O(log n) per rate. Trimmed from the oldest; a release, settle or move shifts the totals after
 * it (O(grants after it), rare, as in the scripts).
 */

/** A grant in one log: its member (as the scripts name it), time (µs), cost in this log's dimension, and running total. */
export interface LogEntry {
  readonly member: string;
  readonly time: number;
  readonly cost: number;
  total: number;
}

export class MemoryLog {
  /** Entries from `head` on are live; the ones before it were trimmed (compacted now and then). */
  private entries: LogEntry[] = [];
  private head = 0;
  private readonly byMember = new Map<string, LogEntry>();

  get size(): number {
    return this.entries.length - this.head;
  }

  /** The newest running total (0 when empty): the next grant's total is this + its cost. */
  get total(): number {
    return this.entries.length > this.head ? (this.entries[this.entries.length - 1] as LogEntry).total : 0;
  }

  /** The newest grant's time (0 when empty). */
  get newest(): number {
    return this.entries.length > this.head ? (this.entries[this.entries.length - 1] as LogEntry).time : 0;
  }

  has(member: string): boolean {
    return this.byMember.has(member);
  }

  get(member: string): LogEntry | undefined {
    return this.byMember.get(member);
  }

  /** The oldest entry whose running total is at least `threshold` (totals grow with time). */
  firstReaching(threshold: number): LogEntry | undefined {
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as LogEntry).total >= threshold) hi = mid;
      else lo = mid + 1;
    }
    return this.entries[lo];
  }

  /** The position of the first entry later than `time` (the end when none is). */
  firstAfter(time: number): number {
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as LogEntry).time > time) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The live entries from position `from` while `keep` holds (positions as `firstAfter` gives them). */
  *from(position: number): Iterable<LogEntry> {
    for (let i = Math.max(position, this.head); i < this.entries.length; i++) yield this.entries[i] as LogEntry;
  }

  append(member: string, time: number, cost: number): void {
    const entry = { member, time, cost, total: this.total + cost };
    this.entries.push(entry);
    this.byMember.set(member, entry);
  }

  /** Takes `member` out; every later total drops by its cost. */
  remove(member: string): LogEntry | undefined {
    const entry = this.byMember.get(member);
    if (entry === undefined) return undefined;
    const at = this.indexOf(entry);
    this.entries.splice(at, 1);
    this.byMember.delete(member);
    for (let i = at; i < this.entries.length; i++) (this.entries[i] as LogEntry).total -= entry.cost;
    return entry;
  }

  /** `member` becomes `renamed` of cost `cost` in its place (0: taken out); every later total moves by the difference. */
  recost(member: string, renamed: string, cost: number): void {
    const entry = this.byMember.get(member);
    if (entry === undefined) return;
    if (cost <= 0) {
      this.remove(member);
      return;
    }
    const at = this.indexOf(entry);
    const delta = cost - entry.cost;
    const next = { member: renamed, time: entry.time, cost, total: entry.total + delta };
    this.entries[at] = next;
    this.byMember.delete(member);
    this.byMember.set(renamed, next);
    for (let i = at + 1; i < this.entries.length; i++) (this.entries[i] as LogEntry).total += delta;
  }

  /**
   * Puts a grant in after every entry at or before `time`, its total the one before it + its cost;
   * every later total grows by its cost.
   */
  insert(member: string, time: number, cost: number): void {
    const at = this.firstAfter(time);
    const before = at > this.head ? (this.entries[at - 1] as LogEntry).total : this.totalBeforeOldest();
    const entry = { member, time, cost, total: before + cost };
    this.entries.splice(at, 0, entry);
    this.byMember.set(member, entry);
    for (let i = at + 1; i < this.entries.length; i++) (this.entries[i] as LogEntry).total += cost;
  }

  /** Drops every grant at or before `cutoff`: none of them is in any window again. */
  trim(cutoff: number): void {
    while (this.head < this.entries.length && (this.entries[this.head] as LogEntry).time <= cutoff) {
      this.byMember.delete((this.entries[this.head] as LogEntry).member);
      this.head += 1;
    }
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 64 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** The running total just before the oldest live entry (0 when empty). */
  private totalBeforeOldest(): number {
    const oldest = this.entries[this.head];
    return oldest === undefined ? 0 : oldest.total - oldest.cost;
  }

  private indexOf(entry: LogEntry): number {
    // Totals are strictly increasing (every entry costs > 0 here): the entry is the first reaching its own.
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as LogEntry).total >= entry.total) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
