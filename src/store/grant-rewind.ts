/**
 * Giving a store clearance's grants back and asking for their messages again: every grant held, in
 * the order granted, from a time on (a pause, new rates, a lost state, a head of higher priority with
 * no grant of its kind), never while a reserve call is out (its batch sits between the grants held
 * and the requests waiting, so the rewind waits for its answer). Each give-back is told once.
 */
import type { ClearanceRequest, GrantsRewoundReason, StoreHooks } from '../engine/index.js';
import type { Grant, GrantBook } from './grant-book.js';
import type { ReserveCalls } from './reserve-calls.js';
import type { ReservationQueue } from './reserve-lines.js';
import type { StoreChannelHalves } from './store-halves.js';

export class GrantRewind {
  /** A rewind asked for while a reserve call was out (from when, why): done when it answers, so that order is kept. */
  private pending: { at: number; reason: GrantsRewoundReason } | undefined;
  closed = false;

  constructor(
    private readonly grants: GrantBook,
    private readonly toReserve: ReservationQueue,
    private readonly calls: () => ReserveCalls,
    private readonly refused: ReadonlySet<number>,
    private readonly hooks: StoreHooks,
    private readonly halves: StoreChannelHalves | undefined,
  ) {}

  /** The reserve call out ended: a rewind asked for meanwhile is done now. */
  callEnded(): void {
    if (this.pending !== undefined) this.rewind(this.pending.at, this.pending.reason);
  }

  /** Gives every unused grant back and asks again for those messages, in arrival order, from `at`. */
  rewind(at: number, reason: GrantsRewoundReason): void {
    const calls = this.calls();
    if (calls.asking) {
      this.pending = { at: Math.max(this.pending?.at ?? at, at), reason };
      return;
    }
    this.pending = undefined;
    // Per-channel: every head is asked again at the next wake, and no line waits for its old hold.
    this.halves?.changedAll();
    this.toReserve.releaseHolds?.();
    const held = this.grants.takeAll();
    // Told after this call to the clearance returns (a hook is never called during one).
    if (held.length > 0) queueMicrotask(() => this.closed || this.hooks.rewound(held.length, 0, reason));
    this.toReserve.putBack(held.map((grant) => grant.request));
    calls.giveBack(held.map((grant) => grant.reservation));
    // From `at` the head is asked for again: a `later` told for messages behind it no longer holds it back.
    calls.retryAt = at;
  }

  /**
   * The head holds no grant while later messages of higher priority hold some: waiting behind them could
   * be for ever (the store grants only so far ahead), so it takes the earliest grant of its kind (its
   * holder is asked for again); with none of its kind, every grant goes back and the head is asked first
   * (FIFO only: per channel, a head waits only for its own line).
   */
  takeForHead(request: ClearanceRequest, now: number): Grant | undefined {
    if (this.grants.size === 0 || this.refused.has(request.seq)) return undefined;
    const taken = this.grants.steal(request);
    if (taken !== undefined) {
      // What it still asks for is not needed: taken out of the line, or given back when it comes.
      this.toReserve.withdraw(request.seq);
      this.toReserve.putBack([taken.from]);
      return taken.grant;
    }
    // Its own answer may be on its way: asked again when it is back. Per line, another line's grants
    // are no reason to give anything back: the head's own line asks for it in its turn.
    if (this.calls().asking || this.halves !== undefined) return undefined;
    this.rewind(now, 'priority');
    this.toReserve.promote(request);
    return undefined;
  }
}
