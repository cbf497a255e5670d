/**
 * The messages a store clearance has yet to ask the store for, in the order it
 * will ask: arrival order, except that a message can be moved to the front
 * (`promote`: the dispatcher's head, which goes next whatever its arrival) or
 * taken out (`withdraw`: it left the queue, or got a grant another way). At most
 * one live entry of a message waits here; an entry moved or taken out stays in the
 * deque, skipped when it comes up (taking it out of the middle would be O(n)).
 * Each push is an entry of its own: the same request object can come back (a
 * grant taken from it, a rewind) while an old entry of it still waits to be
 * skipped, and skipping by the request itself took the new one for the old.
 * It also knows which messages the reserve call that is out asks for, so that
 * what that call brings for a message withdrawn meanwhile is given back.
 */
import type { ClearanceRequest } from '../engine/index.js';
import { Deque } from '../engine/index.js';

/** One place in the line: skipped when superseded, whichever request object it carries. */
interface Entry {
  readonly request: ClearanceRequest;
}

export class ReserveLine {
  private readonly line = new Deque<Entry>();
  /** The live entry of each message in the line, by seq. */
  private readonly live = new Map<number, Entry>();
  /** Entries superseded by a promotion or dropped: skipped when they come up. */
  private readonly skipped = new Set<Entry>();
  /** The messages the reserve call that is out asks for. */
  private readonly out = new Set<number>();
  /** Messages of the call out withdrawn meanwhile: what it brings them is given back. */
  private readonly withdrawnOut = new Set<number>();

  /** Messages waiting to be asked for. */
  get length(): number {
    return this.live.size;
  }

  has(seq: number): boolean {
    return this.live.has(seq);
  }

  push(request: ClearanceRequest): void {
    this.supersede(request.seq);
    const entry: Entry = { request };
    this.line.push(entry);
    this.live.set(request.seq, entry);
  }

  /** Puts requests back at the front, keeping their order (a failed or rewound ask). */
  putBack(requests: readonly ClearanceRequest[]): void {
    for (let index = requests.length - 1; index >= 0; index--) {
      const request = requests[index] as ClearanceRequest;
      this.supersede(request.seq);
      const entry: Entry = { request };
      this.line.unshift(entry);
      this.live.set(request.seq, entry);
    }
  }

  /** Moves a message to the front (one not in the line is put there; not one the call out asks for). */
  promote(request: ClearanceRequest): void {
    this.putBack([request]);
  }

  /**
   * A message no longer needs a grant (it left the queue, or got one another way): taken out of
   * the line, and when the call out asks for it, what that brings it is given back.
   */
  withdraw(seq: number): void {
    this.supersede(seq);
    if (this.out.has(seq)) this.withdrawnOut.add(seq);
  }

  /** The next message to ask for, if any (superseded entries at the front are dropped on the way). */
  head(): ClearanceRequest | undefined {
    for (;;) {
      const entry = this.line.peekFirst();
      if (entry === undefined) return undefined;
      if (!this.skipped.delete(entry)) return entry.request;
      this.line.shift();
    }
  }

  /** The next messages to ask for, at most `max`, taken out of the line: the call out asks for them. */
  takeBatch(max: number): ClearanceRequest[] {
    const batch: ClearanceRequest[] = [];
    while (batch.length < max) {
      const entry = this.line.shift();
      if (entry === undefined) break;
      if (this.skipped.delete(entry)) continue;
      this.live.delete(entry.request.seq);
      this.out.add(entry.request.seq);
      batch.push(entry.request);
    }
    return batch;
  }

  /** The call out answered or failed, and what it asked for was dealt with (`withdrawnMeanwhile`). */
  callEnded(): void {
    this.out.clear();
    this.withdrawnOut.clear();
  }

  /** Whether a message of the call out was withdrawn meanwhile (its grant goes back); asked once per message. */
  withdrawnMeanwhile(seq: number): boolean {
    return this.withdrawnOut.delete(seq);
  }

  private supersede(seq: number): void {
    const old = this.live.get(seq);
    if (old === undefined) return;
    this.skipped.add(old);
    this.live.delete(seq);
  }
}
