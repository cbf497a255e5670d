/** Where an item keeps its position in one heap: -1 while it is in none. */
export interface HeapSlot<T> {
  get(item: T): number;
  set(item: T, position: number): void;
}

/**
 * A binary heap whose items know their position in it, so that one can be
 * taken out or moved after its key changed in O(log n) (a plain heap would
 * leave a stale copy behind, and a copy per change is an allocation per
 * message). An item is in at most one heap per slot.
 */
export class IndexedHeap<T> {
  private readonly items: T[] = [];
  private readonly before: (a: T, b: T) => boolean;
  private readonly slot: HeapSlot<T>;

  /** `before(a, b)`: a comes out first. */
  constructor(before: (a: T, b: T) => boolean, slot: HeapSlot<T>) {
    this.before = before;
    this.slot = slot;
  }

  get size(): number {
    return this.items.length;
  }

  /** The item that comes out first; undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  has(item: T): boolean {
    const position = this.slot.get(item);
    return position >= 0 && this.items[position] === item;
  }

  push(item: T): void {
    this.items.push(item);
    this.siftUp(this.items.length - 1, item);
  }

  pop(): T | undefined {
    const first = this.items[0];
    if (first !== undefined) this.remove(first);
    return first;
  }

  /** Takes an item out from anywhere; one not in this heap is left alone. */
  remove(item: T): void {
    if (!this.has(item)) return;
    const position = this.slot.get(item);
    this.slot.set(item, -1);
    const last = this.items.pop() as T;
    if (last === item) return;
    this.items[position] = last;
    this.restore(position, last);
  }

  /** Puts an item in its place after its key changed, or adds it when it is not in the heap. */
  update(item: T): void {
    if (this.has(item)) this.restore(this.slot.get(item), item);
    else this.push(item);
  }

  /** Takes every item out (their slots say so), keeping none. */
  clear(): T[] {
    const all = this.items.splice(0);
    for (const item of all) this.slot.set(item, -1);
    return all;
  }

  /**
   * The first `count` items in order, without taking them out: a best-first
   * walk of the tree (an item's children never come before it), so it costs
   * O(count^2) whatever the size of the heap (count is a summary's few items).
   */
  first(count: number): T[] {
    const found: T[] = [];
    const frontier: number[] = this.items.length > 0 ? [0] : [];
    while (found.length < count && frontier.length > 0) {
      let best = 0;
      for (let i = 1; i < frontier.length; i++) {
        if (this.before(this.items[frontier[i] as number] as T, this.items[frontier[best] as number] as T)) best = i;
      }
      const position = frontier[best] as number;
      frontier[best] = frontier[frontier.length - 1] as number;
      frontier.pop();
      found.push(this.items[position] as T);
      for (const child of [2 * position + 1, 2 * position + 2]) if (child < this.items.length) frontier.push(child);
    }
    return found;
  }

  /** The items in heap order (not sorted), without taking them out. */
  *[Symbol.iterator](): IterableIterator<T> {
    yield* this.items;
  }

  private restore(position: number, item: T): void {
    const parent = (position - 1) >> 1;
    if (position > 0 && this.before(item, this.items[parent] as T)) this.siftUp(position, item);
    else this.siftDown(position, item);
  }

  private siftUp(position: number, item: T): void {
    while (position > 0) {
      const parent = (position - 1) >> 1;
      const above = this.items[parent] as T;
      if (!this.before(item, above)) break;
      this.items[position] = above;
      this.slot.set(above, position);
      position = parent;
    }
    this.items[position] = item;
    this.slot.set(item, position);
  }

  private siftDown(position: number, item: T): void {
    const length = this.items.length;
    for (;;) {
      let child = 2 * position + 1;
      if (child >= length) break;
      const right = child + 1;
      if (right < length && this.before(this.items[right] as T, this.items[child] as T)) child = right;
      const below = this.items[child] as T;
      if (!this.before(below, item)) break;
      this.items[position] = below;
      this.slot.set(below, position);
      position = child;
    }
    this.items[position] = item;
    this.slot.set(item, position);
  }
}
