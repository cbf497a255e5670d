/**
 * The grants a throttler's store clearance holds: by queue seq (who sends on
 * which), and by channel and cost in the order they were granted, so that a
 * message can take an earlier grant of its kind from one that goes after it.
 *
 * Why swapping is safe: Redis counts a grant at its time for its channel and
 * cost, whoever sends on it, so two waiting messages of the same channel and
 * cost may exchange grants without any window seeing a difference. The store
 * reserves in arrival order; with priorities a later message may go first: it
 * sends on the earliest grant of its kind, the message it took it from taking
 * its own (later) one, or asking again if it had none.
 */
import type { ClearanceRequest } from '../engine/index.js';
import { Deque } from '../engine/index.js';
import { costKey } from '../rate/index.js';
import type { Reservation } from './protocol.js';

export interface Grant {
  /**
   * Its time on Redis' clock (ms), where it counts. When it may be sent on this process's clock is
   * worked out as it is about to go (redis-clock.ts), with the freshest knowledge of the offset.
   */
  redisTime: number;
  reservation: Reservation;
  /** The message that holds it (changes when two messages swap). */
  request: ClearanceRequest;
  /** Used or given back: left behind in its kind's deque until it reaches the front. */
  spent: boolean;
  /** Late, and being moved to Redis' now (late-grants.ts): not sent until the answer comes. */
  retiming: boolean;
  /** How often it was moved: one late again after MAX_RETIMES moves is given back (late-grants.ts). */
  retimes: number;
  /**
   * Asked or answered while the local window held after an outage (outage-sends.ts): it goes on that
   * window too whenever it is sent, so that no grant asked before others' reports were in outlives it.
   */
  onLocal: boolean;
}

export class GrantBook {
  /** By queue seq, in the order they were granted (a Map keeps insertion order; a swap keeps both places). */
  private readonly bySeq = new Map<number, Grant>();
  private readonly byKind = new Map<string | undefined, Map<number | string, Deque<Grant>>>();

  get(seq: number): Grant | undefined {
    return this.bySeq.get(seq);
  }

  /** Grants held. */
  get size(): number {
    return this.bySeq.size;
  }

  add(request: ClearanceRequest, redisTime: number, reservation: Reservation, onLocal = false): void {
    const grant: Grant = { redisTime, reservation, request, spent: false, retiming: false, retimes: 0, onLocal };
    this.bySeq.set(request.seq, grant);
    let byCost = this.byKind.get(request.channel);
    if (byCost === undefined) {
      byCost = new Map();
      this.byKind.set(request.channel, byCost);
    }
    let granted = byCost.get(costKey(request.cost));
    if (granted === undefined) {
      granted = new Deque<Grant>(4);
      byCost.set(costKey(request.cost), granted);
    }
    granted.push(grant);
  }

  /** Takes out the grant `seq` holds (it was used, or is given back); undefined when it holds none. */
  take(seq: number): Grant | undefined {
    const grant = this.bySeq.get(seq);
    if (grant === undefined) return undefined;
    this.bySeq.delete(seq);
    grant.spent = true;
    return grant;
  }

  /** The grants held, in the order they were granted. */
  held(): IterableIterator<Grant> {
    return this.bySeq.values();
  }

  /** Takes out a grant wherever it is held (it was given back); false when it is no longer held. */
  drop(grant: Grant): boolean {
    if (grant.spent || this.bySeq.get(grant.request.seq) !== grant) return false;
    this.bySeq.delete(grant.request.seq);
    grant.spent = true;
    return true;
  }

  /** Takes out every grant, in the order they were granted. */
  takeAll(): Grant[] {
    const all = [...this.bySeq.values()];
    for (const grant of all) grant.spent = true;
    this.bySeq.clear();
    this.byKind.clear();
    return all;
  }

  /**
   * Gives `request` (which holds no grant) the earliest grant of its channel and cost, taken from
   * the message that held it (returned as `from`, to be asked for again); undefined when no
   * message holds one of its kind.
   */
  steal(request: ClearanceRequest): { grant: Grant; from: ClearanceRequest } | undefined {
    const granted = this.byKind.get(request.channel)?.get(costKey(request.cost));
    if (granted === undefined) return undefined;
    while (granted.peekFirst()?.spent) granted.shift();
    const grant = granted.peekFirst();
    if (grant === undefined) return undefined;
    const from = grant.request;
    this.bySeq.delete(from.seq);
    grant.request = request;
    this.bySeq.set(request.seq, grant);
    return { grant, from };
  }

  /**
   * The grant `request` (which holds one) should send on: the earliest of its channel and cost.
   * When another message holds an earlier one, the two swap first (the caller asks only for the
   * message that goes next, so every other holder goes after it).
   */
  earliestFor(request: ClearanceRequest): Grant | undefined {
    const own = this.bySeq.get(request.seq);
    if (own === undefined) return undefined;
    const granted = this.byKind.get(request.channel)?.get(costKey(request.cost)) as Deque<Grant>;
    while (granted.peekFirst()?.spent) granted.shift();
    const first = granted.peekFirst() as Grant;
    if (first === own || !(first.redisTime < own.redisTime)) return own;
    const other = first.request;
    first.request = request;
    own.request = other;
    this.bySeq.set(request.seq, first);
    this.bySeq.set(other.seq, own);
    return first;
  }
}
