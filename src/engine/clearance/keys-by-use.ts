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

/** A key's link in the list of uses. */
interface UseLink<TEntry> {
  readonly name: string;
  entry: TEntry;
  older: UseLink<TEntry> | undefined;
  newer: UseLink<TEntry> | undefined;
}

/**
 * Keys in order of last use, oldest first: a Map from name to a link of a doubly-linked list, which a use
 * moves to the newest end. A sweep looks at a few keys from the oldest end and stops at the first one still
 * wanted: O(1) per use, amortised.
 *
 * Not an insertion-ordered Map whose use deletes a key and sets it again: V8 leaves each deleted entry in
 * place until the Map is compacted, so a delivery paid a delete, a set and now and then a rehash, twice
 * (the clearance's keys and the audit's), the largest cost of a delivery on a key in a profile of a replay.
 */
export class KeysByUse<TEntry extends UsedEntry> {
  private readonly links = new Map<string, UseLink<TEntry>>();
  /** A use is never dated before the latest one, so the order of the list stays the order of last use. */
  private latestUse = Number.NEGATIVE_INFINITY;
  private placements = 0;
  private oldestLink: UseLink<TEntry> | undefined;
  private newestLink: UseLink<TEntry> | undefined;

  get size(): number {
    return this.links.size;
  }

  get(name: string): TEntry | undefined {
    return this.links.get(name)?.entry;
  }

  /** The keys, oldest use first. */
  *[Symbol.iterator](): IterableIterator<[string, TEntry]> {
    for (let link = this.oldestLink; link !== undefined; link = link.newer) yield [link.name, link.entry];
  }

  *values(): IterableIterator<TEntry> {
    for (let link = this.oldestLink; link !== undefined; link = link.newer) yield link.entry;
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
      const oldest = this.oldestLink;
      if (oldest === undefined) return;
      const { name, entry } = oldest;
      const decision = verdict(name, entry, now - entry.lastUsed);
      if (decision === 'forget') {
        // The verdict may have used or forgotten keys itself: only this name's own link is taken out.
        const link = this.links.get(name);
        if (link !== undefined) {
          this.unlink(link);
          this.links.delete(name);
        }
      } else if (decision === 'in-use') this.use(name, entry, now);
      else if (decision === 'linger') this.place(name, entry);
      else return;
    }
  }

  private place(name: string, entry: TEntry): void {
    let link = this.links.get(name);
    if (link === undefined) {
      link = { name, entry, older: undefined, newer: undefined };
      this.links.set(name, link);
    } else {
      link.entry = entry;
      // Already at the newest end (a burst for one key): the list is left alone.
      if (link === this.newestLink) {
        entry.placed = ++this.placements;
        return;
      }
      this.unlink(link);
    }
    link.older = this.newestLink;
    if (this.newestLink === undefined) this.oldestLink = link;
    else this.newestLink.newer = link;
    this.newestLink = link;
    entry.placed = ++this.placements;
  }

  private unlink(link: UseLink<TEntry>): void {
    if (link.older === undefined) this.oldestLink = link.newer;
    else link.older.newer = link.newer;
    if (link.newer === undefined) this.newestLink = link.older;
    else link.newer.older = link.older;
    link.older = undefined;
    link.newer = undefined;
  }
}
