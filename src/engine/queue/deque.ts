/**
 * A double-ended queue on a ring buffer that doubles when full: push, shift,
 * pop and peek at either end in O(1) amortised, with no copy of the contents
 * per operation (an array's `shift()` is O(n), and an immutable copy per event
 * made 100k appends take 80 s).
 */
export class Deque<T> {
  private items: Array<T | undefined>;
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 16) {
    let capacity = 1;
    while (capacity < initialCapacity) capacity *= 2;
    this.items = new Array<T | undefined>(capacity);
  }

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) & (this.items.length - 1)] = item;
    this.count += 1;
  }

  /** Puts an item back in front (a message whose delivery failed keeps its place). */
  unshift(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.head = (this.head - 1) & (this.items.length - 1);
    this.items[this.head] = item;
    this.count += 1;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count -= 1;
    return item;
  }

  pop(): T | undefined {
    if (this.count === 0) return undefined;
    const slot = (this.head + this.count - 1) & (this.items.length - 1);
    const item = this.items[slot];
    this.items[slot] = undefined;
    this.count -= 1;
    return item;
  }

  peekFirst(): T | undefined {
    return this.count === 0 ? undefined : this.items[this.head];
  }

  peekLast(): T | undefined {
    return this.count === 0 ? undefined : this.items[(this.head + this.count - 1) & (this.items.length - 1)];
  }

  /** Items front to back, without removing them (for snapshots and persistence). */
  *[Symbol.iterator](): IterableIterator<T> {
    const mask = this.items.length - 1;
    for (let i = 0; i < this.count; i++) yield this.items[(this.head + i) & mask] as T;
  }

  /**
   * Keeps only the items `keep` accepts, in order, in an array sized for them:
   * O(length), so callers run it only once the unwanted items are as many as the rest.
   */
  retain(keep: (item: T) => boolean): void {
    const kept: T[] = [];
    for (const item of this) if (keep(item)) kept.push(item);
    let capacity = 4;
    while (capacity < kept.length) capacity *= 2;
    this.items = new Array<T | undefined>(capacity);
    for (let i = 0; i < kept.length; i++) this.items[i] = kept[i];
    this.head = 0;
    this.count = kept.length;
  }

  private grow(): void {
    const capacity = this.items.length;
    const items = new Array<T | undefined>(capacity * 2);
    for (let i = 0; i < this.count; i++) items[i] = this.items[(this.head + i) & (capacity - 1)];
    this.items = items;
    this.head = 0;
  }
}
