/**
 * What one synchronous stretch queues, sent as one QUEUE_BATCH event: a burst
 * of a million `schedule` calls (or `next` values) costs the machine one
 * transition instead of a million (one QUEUE per value took 7 s for a
 * synchronous source of a million values). The batch goes when the deferred
 * flush runs (a microtask, or an action the adapter's scheduler runs with no
 * delay), or earlier, when anything else is about to reach the throttler: an
 * adapter calls `flush()` first, so that order holds.
 */

/** How a flush waits for the end of the stretch; what it returns, if anything, can call the flush off. */
export type DeferFlush = (flush: () => void) => { unsubscribe(): void } | undefined;

export const deferToMicrotask: DeferFlush = (flush) => {
  queueMicrotask(flush);
  return undefined;
};

export class QueueBatcher<TEntry> {
  private entries: TEntry[] = [];
  private flushScheduled = false;
  private pendingFlush: { unsubscribe(): void } | undefined = undefined;
  /** Entries of the unsent batch that left it (an aborted task): the batch is filtered before it goes. */
  private withdrawn = 0;
  private cleared = false;

  constructor(
    private readonly send: (entries: TEntry[]) => void,
    private readonly defer: DeferFlush,
    /** Whether an entry left the batch since it was added; asked only after `withdraw()`. */
    private readonly hasLeft: (entry: TEntry) => boolean = () => false,
  ) {}

  /** Adds an entry to the batch of this stretch, and schedules its flush if none is scheduled yet. */
  add(entry: TEntry): void {
    this.entries.push(entry);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.pendingFlush = this.defer(this.flush);
  }

  /** An entry of the unsent batch has left it: the next flush leaves out the entries `hasLeft` names. */
  withdraw(): void {
    this.withdrawn += 1;
  }

  /** Sends the batch now, if it holds anything; the deferred flush then finds it empty. */
  readonly flush = (): void => {
    this.flushScheduled = false;
    this.pendingFlush = undefined;
    let entries = this.entries;
    if (entries.length === 0 || this.cleared) {
      this.withdrawn = 0;
      return;
    }
    this.entries = [];
    if (this.withdrawn > 0) {
      entries = entries.filter((entry) => !this.hasLeft(entry));
      this.withdrawn = 0;
    }
    if (entries.length > 0) this.send(entries);
  };

  /** Takes the unsent batch out (some may have left it); the batcher goes on. */
  take(): TEntry[] {
    const unsent = this.entries;
    this.entries = [];
    this.withdrawn = 0;
    return unsent;
  }

  /** The throttler is gone: nothing is sent from now on; returns what waited unsent (some may have left it). */
  clear(): TEntry[] {
    this.cleared = true;
    this.pendingFlush?.unsubscribe();
    this.pendingFlush = undefined;
    const unsent = this.entries;
    this.entries = [];
    return unsent;
  }
}
