/**
 * The memory store's decisions: what lua/reserve.ts, release.ts and settle.ts decide in Redis, on the
 * same numbers (integer µs, the same members), each call whole before the next (JavaScript runs one at
 * a time: the atomicity a script has in Redis). Re-timing late grants is memory-retime.ts's; rates,
 * pauses and the keys' template memory-control.ts's. See those scripts for why each rule is so.
 */
import { type DeclaredConfig, toMicros } from './limiter-config.js';
import type { LogEntry } from './memory-log.js';
import { type Bucket, type MemoryRate, MemoryScopes, type Scope } from './memory-scopes.js';

/** A request as the state reads it: its scope, and its cost per dimension ([cost] without dimensions). */
export interface MemoryRequest {
  readonly channel: string | undefined;
  readonly isKey: boolean;
  readonly costs: readonly number[];
}

/** One answer, as the scripts' (kind, µs, member) triple: 0 granted, 1-3 later, 4 refused, 5 its line later (or gone). */
export interface MemoryAnswer {
  readonly kind: number;
  readonly us: number;
  readonly member: string;
}

/** The later kinds a batch may be told, by why: 1 reserve-ahead, 2 paused, 3 quarantine. */
type LaterKind = 1 | 2 | 3;

export class MemoryState {
  readonly scopes: MemoryScopes;
  /** The epoch: every reservation names it (a store whose state expired starts another). */
  readonly epoch: string;
  readonly grace: number;
  readonly ahead: number;
  /** Grants so far (the members' sequence numbers). */
  private seq = 0;
  /** The newest grant's time: FIFO's floor for the next. */
  last = 0;
  /** No grant before this (µs; 0: no pause). */
  pausedUntil = 0;
  /** When the state was created: a channel's token buckets start empty then. */
  readonly createdAt: number;
  /** Rates version: one more per change of rates or template. */
  version = 0;
  /** Grants taken out of a log by a give-back, settle or move, and when (µs): the fleet audit counts them not (lua/audit-trail.ts). */
  readonly gone = new Map<string, number>();
  private goneKept = 0;

  constructor(
    readonly declared: DeclaredConfig,
    epoch: string,
    now: number,
  ) {
    this.epoch = epoch;
    this.createdAt = now;
    this.grace = toMicros(declared.grantGraceMs);
    this.ahead = toMicros(declared.maxReserveAheadMs);
    this.scopes = new MemoryScopes(declared, this.grace);
  }

  get dimCount(): number {
    return this.declared.dims?.length ?? 0;
  }

  costFor(costs: readonly number[], d: number): number {
    return d === 0 ? (costs[0] as number) : (costs[d - 1] ?? 0);
  }

  /** The dimensions a grant of these costs is logged in ([0] without dimensions). */
  dimsOf(costs: readonly number[]): number[] {
    if (this.dimCount === 0) return [0];
    const dims: number[] = [];
    for (let d = 1; d <= this.dimCount; d++) if ((costs[d - 1] ?? 0) > 0) dims.push(d);
    return dims;
  }

  /** The costs a member names (`time:cost:seq:nonce`, the cost 'c1,c2,...' with dimensions). */
  costsOfMember(member: string): number[] {
    return (member.split(':')[1] as string).split(',').map(Number);
  }

  /** The scopes a request of `channel` counts in: overall, and its channel's or key's. */
  scopesOf(channel: string | undefined, isKey: boolean, now: number): Scope[] {
    return channel === undefined ? [this.scopes.overall] : [this.scopes.overall, this.scopes.of(channel, isKey, now)];
  }

  /**
   * The batch in arrival order (lua/reserve.ts); `lines`: per-line, no floor at the previous grant;
   * `nearUs`: this call's reserve-ahead bound, when below the declared one.
   */
  reserve(requests: readonly MemoryRequest[], lines: boolean, now: number, nearUs?: number): MemoryAnswer[] {
    const ahead = nearUs === undefined ? this.ahead : Math.min(this.ahead, nearUs);
    const answers: MemoryAnswer[] = [];
    const lineLater = new Map<string, number>();
    let later: { kind: LaterKind; us: number } | undefined;
    const touched = new Set<Scope>();
    for (const { channel, isKey, costs } of requests) {
      const scopes = this.scopesOf(channel, isKey, now);
      const exceeded = this.exceeded(scopes, costs);
      const line = channel === undefined ? '' : `${isKey ? '*' : '+'}${channel}`;
      if (exceeded !== undefined) answers.push({ kind: 4, us: exceeded, member: '' });
      else if (later) answers.push({ kind: later.kind, us: later.us, member: '' });
      else if (lineLater.has(line)) answers.push({ kind: 5, us: lineLater.get(line) as number, member: '' });
      else {
        let at = Math.max(now, lines ? 0 : this.last, this.pausedUntil);
        const own = lines && channel !== undefined ? this.earliestIn(scopes[1] as Scope, costs, now, now) : now;
        if (own > now) {
          lineLater.set(line, Math.ceil(own - now));
          answers.push({ kind: 5, us: Math.ceil(own - now), member: '' });
          continue;
        }
        for (const s of scopes) at = this.earliestIn(s, costs, at, now);
        if (at - now > ahead) {
          const us = Math.ceil(at - now - ahead);
          later = { kind: this.pausedUntil - now > ahead ? 2 : 1, us };
          answers.push({ kind: later.kind, us, member: '' });
          continue;
        }
        answers.push({ kind: 0, us: Math.ceil(at - now), member: this.grant(scopes, costs, at, now, touched) });
      }
    }
    for (const s of touched) this.trim(s, now);
    return answers;
  }

  /** Gives unused sliding-window grants back (lua/release.ts); the newest left is the floor again. */
  release(
    grants: ReadonlyArray<{ epoch: string; member: string; channel: string | undefined; isKey: boolean }>,
    now: number,
  ): void {
    if (this.declared.strategy !== 'sliding-window') return;
    let removed = false;
    for (const { epoch, member, channel, isKey } of grants) {
      if (epoch !== this.epoch) continue;
      for (const s of this.scopesOf(channel, isKey, now))
        for (const d of this.dimsOf(this.costsOfMember(member)))
          if (s.logs.get(d)?.remove(member)) {
            removed = true;
            this.recordRemoval(member, now);
          }
    }
    if (removed) this.refreshLast();
  }

  /** A sent grant's actual cost replaces its estimate at its own time (lua/settle.ts); 0 takes it out. */
  settle(
    epoch: string,
    member: string,
    channel: string | undefined,
    isKey: boolean,
    actual: readonly number[],
    now: number,
  ): void {
    if (this.declared.strategy !== 'sliding-window' || epoch !== this.epoch) return;
    const estimate = this.costsOfMember(member);
    // Without dimensions a cost of 0 is renamed too (and taken out below), as the script does.
    const positive = this.dimCount === 0 || actual.some((cost) => cost > 0);
    const parts = member.split(':');
    const renamed = positive ? [parts[0], actual.join(','), ...parts.slice(2)].join(':') : undefined;
    let touched = false;
    for (const s of this.scopesOf(channel, isKey, now)) {
      const held = this.dimsOf(estimate).some((d) => s.logs.get(d)?.has(member));
      if (!held || renamed === member) continue;
      touched = true;
      this.recordRemoval(member, now);
      const dims = this.dimCount === 0 ? [0] : Array.from({ length: this.dimCount }, (_, i) => i + 1);
      for (const d of dims) {
        const after = positive ? this.costFor(actual, d) : 0;
        const log = s.logs.get(d);
        if (log?.has(member)) log.recost(member, renamed ?? member, after);
        else if (renamed !== undefined && this.costFor(estimate, d) === 0 && after > 0)
          this.scopes.log(s, d).insert(renamed, timeOf(member), after);
      }
    }
    if (touched) this.refreshLast();
  }

  /** A grant left a log at `now`; the record keeps two longest intervals (the audit reads once per shortest one). */
  recordRemoval(member: string, now: number): void {
    this.gone.set(member, now);
    if (this.gone.size > 64 && this.gone.size > 2 * this.goneKept) {
      const cutoff = now - 2 * this.scopes.longest();
      for (const [old, at] of this.gone) if (at < cutoff) this.gone.delete(old);
      this.goneKept = this.gone.size;
    }
  }

  /** The floor for new grants after a give-back: the overall logs' newest time (lua/prelude.ts refreshNewest). */
  refreshLast(): void {
    let newest = 0;
    for (const log of this.scopes.overall.logs.values()) newest = Math.max(newest, log.newest);
    if (this.declared.strategy === 'sliding-window') this.last = newest;
  }

  /** The smallest limit a request's cost exceeds in its scopes, if any: refused for good. */
  private exceeded(scopes: readonly Scope[], costs: readonly number[]): number | undefined {
    let exceeded: number | undefined;
    for (const s of scopes)
      for (const rate of this.scopes.ratesOf(s))
        if (this.costFor(costs, rate.d) > rate.limit && (exceeded === undefined || rate.limit < exceeded))
          exceeded = rate.limit;
    return exceeded;
  }

  /** The earliest time >= floor at which the costs fit every rate of scope s, either strategy. */
  earliestIn(s: Scope, costs: readonly number[], floor: number, now: number): number {
    let earliest = floor;
    const rates = this.scopes.ratesOf(s);
    if (this.declared.strategy === 'token-bucket') {
      for (const [i, rate] of rates.entries())
        if (this.costFor(costs, rate.d) > 0) earliest = Math.max(earliest, this.bucketRead(s, i, now));
      return earliest;
    }
    for (const d of this.dimsOf(costs)) earliest = Math.max(earliest, s.logs.get(d)?.newest ?? 0);
    for (const rate of rates) {
      const cost = this.costFor(costs, rate.d);
      const log = s.logs.get(rate.d);
      const threshold = cost > 0 && log ? log.total - (rate.limit - cost) : 0;
      if (threshold <= 0 || !log) continue;
      const hit = log.firstReaching(threshold) as LogEntry | undefined;
      if (hit && hit.total - hit.cost < threshold) earliest = Math.max(earliest, hit.time + rate.us + this.grace);
    }
    return earliest;
  }

  /**
   * When scope s's bucket for rate i is next free, read without keeping a bucket that is not there yet: a
   * key's starts empty at its first GRANT, as the scripts' does (a refused ask must not start its refill).
   */
  private bucketRead(s: Scope, i: number, now: number): number {
    return s.buckets.get(i)?.nextFree ?? (s.isKey ? now : this.createdAt);
  }

  /** A scope's bucket for rate i: a key's starts empty at its first grant, a channel's at the state's creation. */
  bucket(s: Scope, i: number, rate: MemoryRate, now: number): Bucket {
    let b = s.buckets.get(i);
    if (b === undefined) {
      b = { nextFree: s.isKey ? now : this.createdAt, stored: 0 };
      s.buckets.set(i, b);
    }
    // A bucket kept across a change of the template: never more stored than the rate now allows.
    b.stored = Math.min(b.stored, this.maxPermits(rate));
    return b;
  }

  maxPermits(rate: MemoryRate): number {
    return this.declared.maxBurst ?? rate.limit;
  }

  /** Records a grant at `at` in every scope (logs or buckets); its member, as the scripts name it. */
  private grant(
    scopes: readonly Scope[],
    costs: readonly number[],
    at: number,
    now: number,
    touched: Set<Scope>,
  ): string {
    this.seq += 1;
    const member = `${Math.ceil(at)}:${costs.join(',')}:${this.seq}:${this.epoch}`;
    for (const s of scopes) {
      touched.add(s);
      if (this.declared.strategy === 'token-bucket') {
        for (const [i, rate] of this.scopes.ratesOf(s).entries()) {
          const cost = this.costFor(costs, rate.d);
          if (cost > 0) spend(this.bucket(s, i, rate, now), rate, this.maxPermits(rate), at, cost);
        }
      } else {
        for (const d of this.dimsOf(costs)) this.scopes.log(s, d).append(member, at, this.costFor(costs, d));
      }
    }
    if (at > this.last) this.last = at;
    return member;
  }

  /** Oldest first: a grant older than the scope's longest interval + grace is in no window again. */
  private trim(s: Scope, now: number): void {
    let longest = 0;
    for (const rate of this.scopes.ratesOf(s)) longest = Math.max(longest, rate.us + this.grace);
    for (const log of s.logs.values()) log.trim(now - longest);
  }
}

/** Pre-consumption, as src/policies/smooth-rate.ts: the request goes at nextFree, its cost pushes nextFree on. */
export function spend(b: Bucket, rate: MemoryRate, maxPermits: number, at: number, cost: number): void {
  const stable = rate.us / rate.limit;
  if (at > b.nextFree) {
    b.stored = Math.min(maxPermits, b.stored + (at - b.nextFree) / stable);
    b.nextFree = at;
  }
  const fromStore = Math.min(cost, b.stored);
  b.nextFree += (cost - fromStore) * stable;
  b.stored -= fromStore;
}

export function timeOf(member: string): number {
  return Number.parseInt(member, 10);
}
