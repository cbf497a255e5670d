/**
 * The order in which a store clearance with weighted fairness asks for its lines (one per channel or
 * key): by virtual finish tags, as the local schedule sends heads (src/engine/fair-share.ts). A line
 * that becomes backlogged starts at the virtual time; each message taken for a call moves its line's
 * tag on by cost / weight; the line with the smallest next tag gives the next message of the call. So
 * the messages of a call come in the order weighted fair queueing would send them, and when the store
 * has room for only part of a call (the overall limit binds), what it grants, a prefix in that order,
 * is each key's `w / Σw` of it within one message's cost. What a call brings back ungranted (put back:
 * later, or held by its own key) gives its tags back, so a key is charged only for what it obtained;
 * the virtual time moves on to the largest start tag granted. A line its own key holds back (the
 * store's `line-later`) keeps its tag: it is behind the others only by what its own rate denied it, and
 * goes first when allowed, which its own rate still bounds (what it cannot use goes to the others).
 *
 * Costs: O(log lines) per message (a binary heap of [tag, line, version]; an entry whose line moved
 * since is skipped as it comes up, and each is pushed by one operation, so O(1) amortised of them).
 */
import { type ClearanceRequest, fairCost, type ResolvedOptions, weightOf } from '../engine/index.js';

/**
 * A store clearance's line weights: undefined without weighted fairness; else the key's weight (the
 * machine has asked and checked it as the key became backlogged, so a weight that throws here is 1).
 */
export function lineWeights(options: ResolvedOptions): ((channel: string | undefined) => number) | undefined {
  if (options.fairness !== 'weighted') return undefined;
  const { weight } = options;
  return (channel) => {
    if (channel === undefined) return 1;
    try {
      return weightOf(weight, channel);
    } catch {
      return 1;
    }
  };
}

/** What the turn needs of a line: its messages' head, its weight and its tags. */
export interface TaggedLine {
  readonly weight: number;
  /** The finish tag of the last message taken (committed unless given back); NaN for a new line. */
  tag: number;
  /** Bumped when the line's place changes: older heap entries of it are stale. */
  version: number;
  head(): ClearanceRequest | undefined;
}

type Entry<L> = [key: number, line: L, version: number];

export class WeightedTurn<L extends TaggedLine> {
  /** The largest start tag granted: where a line that becomes backlogged starts. */
  virtualTime = 0;
  private readonly heap: Entry<L>[] = [];
  private readonly queued = new Set<L>();
  /** Per message of the call out: its line and start tag (a message given back returns its line to it). */
  private readonly starts = new Map<number, [L, number]>();

  /** Lines queued to be asked for. */
  get length(): number {
    return this.queued.size;
  }

  /** Queues a line (not already queued) at its next message's finish tag. */
  push(line: L): void {
    const head = line.head();
    const cost = head === undefined ? 1 : fairCost(head.cost);
    // A line starts at the virtual time when it becomes backlogged (queued first), not when first taken.
    if (Number.isNaN(line.tag)) line.tag = this.virtualTime;
    this.insert(line, line.tag + cost / line.weight);
  }

  /** Queues a line ahead of every other (a promoted head: the dispatcher sends it next). */
  unshift(line: L): void {
    this.insert(line, Number.NEGATIVE_INFINITY);
  }

  /** Takes a queued line out of the turn (held, or emptied): its entry goes stale. */
  remove(line: L): void {
    if (!this.queued.delete(line)) return;
    line.version += 1;
  }

  /** The queued line with the smallest next tag, taken out of the turn. */
  shift(): L | undefined {
    while (this.heap.length > 0) {
      const [, line, version] = this.pop();
      if (version !== line.version) continue;
      line.version += 1;
      this.queued.delete(line);
      return line;
    }
    return undefined;
  }

  /** A message of the line is taken for the call out: its tag moves on. */
  taken(line: L, request: ClearanceRequest): void {
    const start = Number.isNaN(line.tag) ? this.virtualTime : line.tag;
    line.tag = start + fairCost(request.cost) / line.weight;
    this.starts.set(request.seq, [line, start]);
  }

  /** A message of the call out comes back ungranted: its line's tag goes back to before it. */
  givenBack(seq: number): void {
    const taken = this.starts.get(seq);
    if (taken === undefined) return;
    this.starts.delete(seq);
    const [line, start] = taken;
    if (start < line.tag) line.tag = start;
  }

  /** The call out ended: the virtual time moves on to the largest start tag it obtained. */
  callEnded(): void {
    for (const [, start] of this.starts.values()) if (start > this.virtualTime) this.virtualTime = start;
    this.starts.clear();
  }

  private insert(line: L, key: number): void {
    line.version += 1;
    this.queued.add(line);
    const heap = this.heap;
    const entry: Entry<L> = [key, line, line.version];
    heap.push(entry);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as Entry<L>)[0] <= key) break;
      heap[i] = heap[parent] as Entry<L>;
      heap[parent] = entry;
      i = parent;
    }
  }

  private pop(): Entry<L> {
    const heap = this.heap;
    const top = heap[0] as Entry<L>;
    const last = heap.pop() as Entry<L>;
    const keyAt = (index: number): number => (heap[index] as Entry<L>)[0];
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        let least = i;
        if (left < heap.length && keyAt(left) < keyAt(least)) least = left;
        if (left + 1 < heap.length && keyAt(left + 1) < keyAt(least)) least = left + 1;
        if (least === i) break;
        heap[i] = heap[least] as Entry<L>;
        heap[least] = last;
        i = least;
      }
    }
    return top;
  }
}
