/**
 * The messages a store clearance with per-channel ordering has yet to ask the store for: one line per
 * channel or key (and one for no channel), each in arrival order as a ReserveLine keeps it. A call asks
 * for the lines in turn, a fair share of the batch each, so a key with a thousand waiting never fills a
 * call that a quiet key's one message is behind. A line the store said its own channel or key cannot
 * take yet (`hold`) is not asked for again until then, while the other lines are.
 *
 * Costs: O(1) amortised per message (a held line waits in a heap, O(log lines) per hold); a line
 * lives while it holds a message or a hold, so memory follows the keys with something waiting.
 */
import { type ClearanceRequest, Deque, IndexedHeap, type ResolvedOptions } from '../engine/index.js';
import { ReserveLine } from './reserve-line.js';
import { lineWeights, WeightedTurn } from './weighted-turn.js';

/** What a store clearance asks its messages' reservations in: one line (FIFO) or one per channel. */
export interface ReservationQueue {
  readonly length: number;
  push(request: ClearanceRequest): void;
  putBack(requests: readonly ClearanceRequest[]): void;
  promote(request: ClearanceRequest): void;
  withdraw(seq: number): void;
  takeBatch(max: number, now: number): ClearanceRequest[];
  callEnded(): void;
  withdrawnMeanwhile(seq: number): boolean;
  /** Per-channel only: the line of `channel` is not asked for before `until`. */
  hold?(channel: string | undefined, until: number): void;
  /** Per-channel only: until when the line of `channel` is held (-Infinity: it is not). */
  heldUntil?(channel: string | undefined): number;
  /** Per-channel only: every hold lifted (new rates, a rewind). */
  releaseHolds?(): void;
  /** Per-channel, exact with weights: now if a line waits unheld, else when the first hold ends (Infinity: none waits). */
  nextAskAt?(now: number): number;
  /** Per-channel only: lines that became backlogged and have not been asked for since. */
  readonly freshLines?: number;
  /**
   * Per-channel with weighted fairness (lines in finish-tag order, held by their own rates only): the
   * weight of `channel`'s line, for the fleet's finish tags in Redis.
   */
  readonly weightOf?: ((channel: string | undefined) => number) | undefined;
}

interface Line {
  readonly name: string | undefined;
  readonly entries: ReserveLine;
  heldUntil: number;
  /** In the deque of lines to ask for (possibly stale: checked as it comes up). */
  queued: boolean;
  /** How many of its messages the call out asks for. */
  out: number;
  /** Its place in the heap of holds (-1: none). */
  holdAt: number;
  /** Weighted fairness (weighted-turn.ts): the weight, the last finish tag, the version of its place. */
  readonly weight: number;
  tag: number;
  version: number;
  head(): ClearanceRequest | undefined;
}

export class ReserveLines implements ReservationQueue {
  private readonly lines = new Map<string | undefined, Line>();
  /** Round robin, or with weights the smallest next finish tag first. */
  private readonly turn: Deque<Line> | WeightedTurn<Line>;
  private readonly weighted: WeightedTurn<Line> | undefined;
  /** Held lines by the end of their hold. */
  private readonly holds = new IndexedHeap<Line>((a, b) => a.heldUntil < b.heldUntil, {
    get: (line) => line.holdAt,
    set: (line, position) => {
      line.holdAt = position;
    },
  });
  /** With weights, lines that became backlogged and have not been asked for since (fair-asks.ts). */
  private readonly fresh = new Set<Line>();
  /** The line of every message waiting or asked for. */
  private readonly lineOf = new Map<number, Line>();
  private readonly outSeqs = new Set<number>();
  private total = 0;
  private readonly weigher: ((channel: string | undefined) => number) | undefined;

  /** With a weight per channel or key (`fairness: 'weighted'`), asked as its line is made. */
  constructor(private readonly weigh?: (channel: string | undefined) => number) {
    this.weighted = weigh === undefined ? undefined : new WeightedTurn<Line>();
    this.weigher = weigh && ((channel) => this.lines.get(channel)?.weight ?? weigh(channel));
    this.turn = this.weighted ?? new Deque<Line>();
  }

  /** The lines of a throttler with these options: weighted with `fairness: 'weighted'`. */
  static of(options: ResolvedOptions): ReserveLines {
    return new ReserveLines(lineWeights(options));
  }

  get length(): number {
    return this.total;
  }

  get weightOf(): ((channel: string | undefined) => number) | undefined {
    return this.weigher;
  }

  push(request: ClearanceRequest): void {
    const line = this.lineFor(request.channel);
    const idle = line.entries.length === 0 && line.out === 0 && line.heldUntil === Number.NEGATIVE_INFINITY;
    if (this.weighted && idle) this.fresh.add(line);
    this.change(line, (entries) => entries.push(request), request.seq);
  }

  get freshLines(): number {
    return this.fresh.size;
  }

  putBack(requests: readonly ClearanceRequest[]): void {
    const byLine = new Map<Line, ClearanceRequest[]>();
    for (const request of requests) {
      const line = this.lineFor(request.channel);
      const list = byLine.get(line);
      if (list === undefined) byLine.set(line, [request]);
      else list.push(request);
      this.lineOf.set(request.seq, line);
      this.weighted?.givenBack(request.seq);
    }
    for (const [line, list] of byLine) {
      // Its tag may have gone back: queued afresh at its new one.
      if (this.weighted) line.queued = false;
      this.change(line, (entries) => entries.putBack(list));
    }
  }

  promote(request: ClearanceRequest): void {
    const line = this.lineFor(request.channel);
    this.change(line, (entries) => entries.promote(request), request.seq);
    // Its line is asked for first.
    line.queued = true;
    this.turn.unshift(line);
  }

  withdraw(seq: number): void {
    const line = this.lineOf.get(seq);
    if (line === undefined) return;
    this.change(line, (entries) => entries.withdraw(seq));
    if (!line.entries.has(seq) && !this.outSeqs.has(seq)) this.lineOf.delete(seq);
    this.forgetIfIdle(line);
  }

  takeBatch(max: number, now: number): ClearanceRequest[] {
    this.liftHolds(now);
    const batch: ClearanceRequest[] = [];
    // With weights, a line just backlogged first (one message): the call tells the store that it waits.
    for (const line of this.fresh) {
      if (batch.length >= max) break;
      this.setAside(line);
      this.takeFrom(line, 1, batch);
    }
    // With weights, one message per turn: the call comes in finish-tag order.
    const share = this.weighted ? 1 : Math.max(1, Math.floor(max / Math.max(1, this.turn.length)));
    while (batch.length < max) {
      const line = this.turn.shift();
      if (line === undefined) break;
      line.queued = false;
      if (line.heldUntil > now || line.entries.length === 0) continue;
      this.takeFrom(line, Math.min(share, max - batch.length), batch);
    }
    return batch;
  }

  private takeFrom(line: Line, count: number, batch: ClearanceRequest[]): void {
    const before = line.entries.length;
    const taken = line.entries.takeBatch(count);
    this.total -= before - line.entries.length;
    line.out += taken.length;
    for (const request of taken) {
      this.weighted?.taken(line, request);
      this.outSeqs.add(request.seq);
      batch.push(request);
    }
    this.enqueue(line);
  }

  callEnded(): void {
    for (const seq of this.outSeqs) {
      const line = this.lineOf.get(seq);
      if (line === undefined) continue;
      line.out = 0;
      line.entries.callEnded();
      if (!line.entries.has(seq)) this.lineOf.delete(seq);
      this.forgetIfIdle(line);
    }
    this.outSeqs.clear();
    this.weighted?.callEnded();
  }

  withdrawnMeanwhile(seq: number): boolean {
    return this.lineOf.get(seq)?.entries.withdrawnMeanwhile(seq) ?? false;
  }

  hold(channel: string | undefined, until: number): void {
    const line = this.lineFor(channel);
    if (until <= line.heldUntil) return;
    line.heldUntil = until;
    this.setAside(line);
    if (this.holds.has(line)) this.holds.update(line);
    else this.holds.push(line);
  }

  heldUntil(channel: string | undefined): number {
    return this.lines.get(channel)?.heldUntil ?? Number.NEGATIVE_INFINITY;
  }

  nextAskAt(now: number): number {
    this.liftHolds(now);
    if (this.turn.length > 0) return now;
    return this.holds.peek()?.heldUntil ?? Number.POSITIVE_INFINITY;
  }

  releaseHolds(): void {
    for (const line of this.holds.clear()) {
      line.heldUntil = Number.NEGATIVE_INFINITY;
      this.enqueue(line);
      this.forgetIfIdle(line);
    }
  }

  private lineFor(channel: string | undefined): Line {
    let line = this.lines.get(channel);
    if (line === undefined) {
      const entries = new ReserveLine();
      line = {
        name: channel,
        entries,
        heldUntil: Number.NEGATIVE_INFINITY,
        queued: false,
        out: 0,
        holdAt: -1,
        weight: this.weigh?.(channel) ?? 1,
        tag: Number.NaN,
        version: 0,
        head: () => entries.head(),
      };
      this.lines.set(channel, line);
    }
    return line;
  }

  /** Runs a change of one line's entries, keeping the total and the turn. */
  private change(line: Line, apply: (entries: ReserveLine) => void, seq?: number): void {
    const before = line.entries.length;
    apply(line.entries);
    this.total += line.entries.length - before;
    if (line.entries.length === 0) this.setAside(line);
    if (seq !== undefined) this.lineOf.set(seq, line);
    this.enqueue(line);
  }

  /** Held or emptied: not just backlogged, and out of a weighted turn (which then holds only lines to take from). */
  private setAside(line: Line): void {
    this.unfresh(line);
    if (this.weighted === undefined || !line.queued) return;
    this.weighted.remove(line);
    line.queued = false;
  }

  private unfresh(line: Line): void {
    this.fresh.delete(line);
  }

  private enqueue(line: Line): void {
    // A held line is queued again as its hold is lifted: the turn holds only lines a call can take.
    if (line.queued || line.entries.length === 0 || line.heldUntil !== Number.NEGATIVE_INFINITY) return;
    line.queued = true;
    this.turn.push(line);
  }

  /** A line with nothing waiting, asked for or held is forgotten (a key comes and goes). */
  private forgetIfIdle(line: Line): void {
    if (line.entries.length === 0 && line.out === 0 && line.heldUntil === Number.NEGATIVE_INFINITY)
      this.lines.delete(line.name);
  }

  private liftHolds(now: number): void {
    for (let line = this.holds.peek(); line !== undefined && line.heldUntil <= now; line = this.holds.peek()) {
      this.holds.pop();
      line.heldUntil = Number.NEGATIVE_INFINITY;
      this.enqueue(line);
      this.forgetIfIdle(line);
    }
  }
}
