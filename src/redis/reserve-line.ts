/**
 * The messages a store clearance has yet to ask the store for, in the order it
 * will ask: arrival order, except that a message can be moved to the front
 * (`promote`: the dispatcher's head, which goes next whatever its arrival) or
 * taken out (`drop`: it got a grant another way). At most one live copy of a
 * message waits here; a copy moved or dropped stays in the deque, skipped when
 * it comes up (taking it out of the middle would be O(n)).
 */
import type { ClearanceRequest } from '../machine/clearance.js';
import { Deque } from '../machine/deque.js';

export class ReserveLine {
  private readonly line = new Deque<ClearanceRequest>();
  /** The live copy of each message in the line, by seq. */
  private readonly live = new Map<number, ClearanceRequest>();
  /** Copies superseded by a promotion or dropped: skipped when they come up. */
  private readonly skipped = new Set<ClearanceRequest>();

  /** Messages waiting to be asked for. */
  get length(): number {
    return this.live.size;
  }

  has(seq: number): boolean {
    return this.live.has(seq);
  }

  push(request: ClearanceRequest): void {
    this.supersede(request.seq);
    this.line.push(request);
    this.live.set(request.seq, request);
  }

  /** Puts requests back at the front, keeping their order (a failed or rewound ask). */
  putBack(requests: readonly ClearanceRequest[]): void {
    for (let index = requests.length - 1; index >= 0; index--) {
      const request = requests[index] as ClearanceRequest;
      this.supersede(request.seq);
      this.line.unshift(request);
      this.live.set(request.seq, request);
    }
  }

  /** Moves a message to the front (one not in the line is put there). */
  promote(request: ClearanceRequest): void {
    // A copy: the object in the line stays behind, skipped, and must not be mistaken for this one.
    this.putBack([{ seq: request.seq, channel: request.channel, cost: request.cost }]);
  }

  /** Takes a message out of the line; false when it was not in it. */
  drop(seq: number): boolean {
    if (!this.live.has(seq)) return false;
    this.supersede(seq);
    return true;
  }

  /** The next message to ask for, out of the line; undefined when none waits. */
  take(): ClearanceRequest | undefined {
    for (let request = this.line.shift(); request !== undefined; request = this.line.shift()) {
      if (this.skipped.delete(request)) continue;
      this.live.delete(request.seq);
      return request;
    }
    return undefined;
  }

  private supersede(seq: number): void {
    const old = this.live.get(seq);
    if (old === undefined) return;
    this.skipped.add(old);
    this.live.delete(seq);
  }
}
