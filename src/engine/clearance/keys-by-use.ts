/** What the list keeps of each key: when it was last used, and the stamp of its last placing. */
export interface UsedEntry {
  lastUsed: number;
  placed: number;
}

/**
 * What a sweep does with the oldest key: forget it; move it to the newest end as used now (it is in use);
 * move it there with its last use unchanged (it lingers for a reason of its own); or stop, leaving it.
 */
export type SweepVerdict = 'forget' | 'in-use' | 'linger' | 'stop';

/**
 * Keys in order of last use, oldest first: an insertion-ordered Map in which a use deletes a key and
 * sets it again, at the newest end. A sweep looks at a few keys from the oldest end and stops at the
 * first one still wanted: O(1) per use, amortised.
 *
 * The sweep walks one live iterator (`cursor`) rather than a fresh one each time: V8 leaves a deleted
 * entry in place until the Map is compacted, and a fresh iterator passes every one of them, which made
 * each sweep O(keys) (a profile of a million keys showed it). The live cursor passes each deleted entry
 * once; `held` is the entry it gave and the sweep left in place, the oldest still, unless it was used
 * (placed again) or forgotten since.
 */
export class KeysByUse<TEntry extends UsedEntry> {
  private readonly entries = new Map<string, TEntry>();
  /** A use is never dated before the latest one, so the order of the Map stays the order of last use. */
  private latestUse = Number.NEGATIVE_INFINITY;
  private placements = 0;
  private cursor: IterableIterator<[string, TEntry]> = this.entries.entries();
  private held: { name: string; entry: TEntry; placed: number } | undefined;

  get size(): number {
    return this.entries.size;
  }

  get(name: string): TEntry | undefined {
    return this.entries.get(name);
  }

  /** The keys, oldest use first. */
  [Symbol.iterator](): IterableIterator<[string, TEntry]> {
    return this.entries.entries();
  }

  values(): IterableIterator<TEntry> {
    return this.entries.values();
  }

  /** A key used at `at` (a new one, or one used again): it goes to the newest end. */
  use(name: string, entry: TEntry, at: number): void {
    this.latestUse = Math.max(this.latestUse, at);
    entry.lastUsed = this.latestUse;
    this.place(name, entry);
  }

  /** Looks at up to `steps` keys from the oldest end, doing with each what `verdict` says. */
  sweep(now: number, steps: number, verdict: (name: string, entry: TEntry, idle: number) => SweepVerdict): void {
    for (let step = 0; step < steps; step++) {
      const oldest = this.oldest();
      if (oldest === undefined) return;
      const [name, entry] = oldest;
      const decision = verdict(name, entry, now - entry.lastUsed);
      if (decision === 'forget') this.entries.delete(name);
      else if (decision === 'in-use') this.use(name, entry, now);
      else if (decision === 'linger') this.place(name, entry);
      else {
        this.held = { name, entry, placed: entry.placed };
        return;
      }
    }
  }

  private place(name: string, entry: TEntry): void {
    // Already at the newest end (a burst for one key): the Map is left alone.
    if (entry.placed === this.placements && this.entries.get(name) === entry) return;
    this.entries.delete(name);
    this.entries.set(name, entry);
    entry.placed = ++this.placements;
  }

  /** The least recently placed key, or undefined when none lives. */
  private oldest(): [string, TEntry] | undefined {
    const held = this.held;
    this.held = undefined;
    // The cursor has passed every key placed before the held one: if that key was neither used nor forgotten since,
    // it is still the oldest.
    if (held !== undefined && this.entries.get(held.name) === held.entry && held.entry.placed === held.placed) {
      return [held.name, held.entry];
    }
    let next = this.cursor.next();
    if (next.done === true) {
      // Spent: every key was passed. A fresh cursor starts at the oldest end again.
      this.cursor = this.entries.entries();
      next = this.cursor.next();
    }
    return next.done === true ? undefined : next.value;
  }
}
