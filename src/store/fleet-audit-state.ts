import { type RateAudit, WindowAudit, type WindowAuditJSON, type WindowFindings } from '../engine/index.js';
import { formatRate } from '../rate/index.js';
import type { FleetAuditReport } from './protocol.js';

/** A grant the audit has seen and not yet counted: `kept` once it left the logs by a trim (no give-back). */
export interface PendingGrant {
  m: string;
  t: number;
  /** Its cost: a number, or with rates in dimensions one per dimension (the store's numbering). */
  c: number | number[];
  seq: number;
  /** '' overall only, 'c' + a channel, 'k' + a key. */
  s: string;
  kept?: boolean;
}

/** One scope's log as the audit's read found it: its rates in force ([limit, µs]) and its grants, oldest first. */
export interface ScopeRead {
  id: string;
  rates: string;
  grants: PendingGrant[];
}

/** One read: Redis' now and the limiter's longest interval + grace (µs), the give-backs (member -> µs), the scopes. */
export interface AuditRead {
  now: number;
  longest: number;
  grace: number;
  gone: ReadonlyMap<string, number>;
  scopes: readonly ScopeRead[];
  /** The dimensions' names, numbered from 1 as the rates' third element says (rates in dimensions only). */
  dims?: readonly string[] | undefined;
}

interface ScopeLinesJSON {
  rates: string;
  current: WindowAuditJSON[];
  past: WindowAuditJSON[];
}

export interface FleetAuditStateJSON {
  since: number;
  readAt: number;
  settled: number;
  deliveries: number;
  gaps: number;
  pending: PendingGrant[];
  scopes: Array<[string, ScopeLinesJSON]>;
  folded: Array<[string, WindowFindings]>;
}

class ScopeLines {
  /** Each current audit's dimension number (0: rates without dimensions). */
  slots: number[];
  constructor(
    public rates: string,
    public current: WindowAudit[],
    readonly past: WindowAudit[] = [],
  ) {
    this.slots = slotsOf(rates);
  }
  static of(rates: string, dims: readonly string[] | undefined): ScopeLines {
    return new ScopeLines(rates, audits(rates, dims));
  }
  follow(rates: string, dims: readonly string[] | undefined): void {
    if (rates === this.rates) return;
    this.past.push(...this.current.filter((audit) => audit.mostAt !== undefined));
    this.rates = rates;
    this.current = audits(rates, dims);
    this.slots = slotsOf(rates);
  }
  all(): WindowAudit[] {
    return [...this.past, ...this.current];
  }
}

function audits(rates: string, dims: readonly string[] | undefined): WindowAudit[] {
  return (JSON.parse(rates) as Array<[number, number, number?]>).map(([limit, interval, d]) => {
    const dimension = d === undefined ? undefined : dims?.[d - 1];
    return new WindowAudit(dimension === undefined ? { limit, interval } : { limit, interval, dimension });
  });
}

function slotsOf(rates: string): number[] {
  return (JSON.parse(rates) as Array<[number, number, number?]>).map(([, , d]) => d ?? 0);
}

/** A grant's cost in dimension d (0: its cost as a number). */
function costIn(cost: number | number[], d: number): number {
  if (typeof cost === 'number') return cost;
  return d === 0 ? 0 : (cost[d - 1] ?? 0);
}

/**
 * The fleet audit between reads, all on Redis time in µs: the grants seen and not yet counted, and per
 * scope and rate the WindowAudit of those counted. A grant counts once its time is one longest interval
 * + grace past (no decision reads it any more), unless a give-back or a re-time took it out of the logs
 * before that; it is fed in time order, so every window is audited exactly as the local audit does.
 */
export class FleetAuditState {
  private since: number;
  private readAt: number | undefined;
  private settled: number;
  private deliveries: number;
  private gaps: number;
  private pending: Map<string, PendingGrant>;
  private readonly scopes: Map<string, ScopeLines>;
  private readonly folded: Map<string, WindowFindings>;

  constructor(json: FleetAuditStateJSON | undefined, now: number) {
    this.since = json?.since ?? now;
    this.readAt = json?.readAt;
    this.settled = json?.settled ?? -Infinity;
    this.deliveries = json?.deliveries ?? 0;
    this.gaps = json?.gaps ?? 0;
    this.pending = new Map((json?.pending ?? []).map((grant) => [grant.m, grant]));
    this.scopes = new Map(
      (json?.scopes ?? []).map(([id, lines]) => [
        id,
        new ScopeLines(lines.rates, lines.current.map(WindowAudit.fromJSON), lines.past.map(WindowAudit.fromJSON)),
      ]),
    );
    this.folded = new Map(json?.folded ?? []);
  }

  /** The keys whose logs the next read must look at for grants seen and not yet counted. */
  pendingKeys(): string[] {
    const keys = new Set<string>();
    for (const grant of this.pending.values()) if (grant.s.startsWith('k')) keys.add(grant.s.slice(1));
    return [...keys];
  }

  apply(read: AuditRead): void {
    const rates = new Map(read.scopes.map((scope) => [scope.id, scope.rates]));
    if (this.readAt !== undefined && read.now - this.readAt >= shortestSpan(rates.values(), read.grace)) this.gaps += 1;
    const present = new Map<string, PendingGrant>();
    for (const scope of read.scopes) for (const grant of scope.grants) present.set(grant.m, { ...grant, s: scope.id });
    for (const [member, grant] of present) {
      if (grant.t > this.settled && !this.pending.has(member)) this.pending.set(member, grant);
    }
    const settleBy = read.now - read.longest;
    const due: PendingGrant[] = [];
    for (const [member, grant] of this.pending) {
      if (!present.has(member) && !grant.kept) {
        const removedAt = read.gone.get(member);
        if (removedAt !== undefined && removedAt < grant.t + read.longest) {
          this.pending.delete(member);
          continue;
        }
        grant.kept = true;
      }
      if (grant.t <= settleBy) {
        due.push(grant);
        this.pending.delete(member);
      }
    }
    for (const [id, scopeRates] of rates) this.scopes.get(id)?.follow(scopeRates, read.dims);
    due.sort((a, b) => a.t - b.t || a.seq - b.seq);
    for (const grant of due) this.count(grant, rates, read.dims);
    if (settleBy > this.settled) this.settled = settleBy;
    this.readAt = read.now;
    this.foldKeys();
  }

  private count(grant: PendingGrant, rates: ReadonlyMap<string, string>, dims: readonly string[] | undefined): void {
    // As the local audit: a cost per dimension counts one delivery.
    this.deliveries += typeof grant.c === 'number' && dims === undefined ? grant.c : 1;
    for (const id of grant.s === '' ? [''] : ['', grant.s]) {
      let lines = this.scopes.get(id);
      if (lines === undefined) {
        lines = ScopeLines.of(rates.get(id) as string, dims);
        this.scopes.set(id, lines);
      }
      for (const [i, audit] of lines.current.entries()) {
        const cost = costIn(grant.c, lines.slots[i] as number);
        if (cost > 0) audit.record(grant.t, cost);
      }
    }
  }

  /** Keys with nothing pending and nothing in a window: their findings go into the `'keys'` lines. */
  private foldKeys(): void {
    const waiting = new Set(this.pendingKeys());
    for (const [id, lines] of this.scopes) {
      if (!id.startsWith('k') || waiting.has(id.slice(1))) continue;
      if (!lines.current.every((audit) => audit.isEmptyAt(this.settled))) continue;
      this.scopes.delete(id);
      for (const audit of lines.all()) combineInto(this.folded, rateId(audit), audit);
    }
  }

  report(): FleetAuditReport {
    const rates: RateAudit[] = [];
    const keys = new Map<string, WindowFindings>();
    for (const [id, found] of this.folded) combineInto(keys, id, found);
    for (const [id, lines] of this.scopes) {
      const scope: RateAudit['scope'] = id === '' ? 'overall' : id.startsWith('c') ? 'channel' : 'key';
      for (const audit of lines.all()) {
        rates.push({ scope, ...(id === '' ? {} : { name: id.slice(1) }), ...line(audit, audit) });
        if (scope === 'key') combineInto(keys, rateId(audit), audit);
      }
    }
    for (const [id, found] of keys) {
      const [limit, interval, dimension] = JSON.parse(id) as [number, number, string?];
      rates.push({ scope: 'keys', ...line({ limit, interval, dimension }, found) });
    }
    const order = { overall: 0, channel: 1, key: 2, keys: 3 };
    rates.sort((a, b) => order[a.scope] - order[b.scope]);
    const windowsOver = rates.reduce((sum, rate) => (rate.scope === 'key' ? sum : sum + rate.windowsOver), 0);
    return {
      since: this.since / 1000,
      deliveries: this.deliveries,
      windowsOver,
      rates,
      settledUntil: Number.isFinite(this.settled) ? this.settled / 1000 : this.since / 1000,
      gaps: this.gaps,
    };
  }

  toJSON(): FleetAuditStateJSON {
    return {
      since: this.since,
      readAt: this.readAt ?? this.since,
      settled: Number.isFinite(this.settled) ? this.settled : -1,
      deliveries: this.deliveries,
      gaps: this.gaps,
      pending: [...this.pending.values()],
      scopes: [...this.scopes].map(([id, lines]) => [
        id,
        { rates: lines.rates, current: lines.current.map((a) => a.toJSON()), past: lines.past.map((a) => a.toJSON()) },
      ]),
      folded: [...this.folded],
    };
  }
}

/** Reads at least this far apart (µs) may have missed a grant trimmed between them: the shortest log's span. */
function shortestSpan(rates: Iterable<string>, grace: number): number {
  let shortest = Infinity;
  for (const json of rates) {
    const longest = Math.max(...(JSON.parse(json) as Array<[number, number]>).map(([, interval]) => interval));
    shortest = Math.min(shortest, longest + grace);
  }
  return shortest;
}

function rateId(audit: { limit: number; interval: number; dimension?: string | undefined }): string {
  return JSON.stringify(
    audit.dimension === undefined ? [audit.limit, audit.interval] : [audit.limit, audit.interval, audit.dimension],
  );
}

function line(
  rate: { limit: number; interval: number; dimension?: string | undefined },
  found: WindowFindings,
): Omit<RateAudit, 'scope' | 'name'> {
  const interval = rate.interval / 1000;
  return {
    ...(rate.dimension === undefined ? {} : { dimension: rate.dimension }),
    rate: formatRate({ limit: rate.limit, interval }),
    limit: rate.limit,
    interval,
    most: found.most,
    mostAt: found.mostAt === undefined ? undefined : found.mostAt / 1000,
    windowsOver: found.windowsOver,
  };
}

/** The larger most (the earlier moment on a tie), the windows over summed: as the local audit's `'keys'` lines. */
function combineInto(into: Map<string, WindowFindings>, id: string, found: WindowFindings): void {
  const kept = into.get(id);
  if (kept === undefined) {
    into.set(id, { most: found.most, mostAt: found.mostAt, windowsOver: found.windowsOver });
    return;
  }
  if (found.most > kept.most || (found.most === kept.most && (found.mostAt ?? Infinity) < (kept.mostAt ?? Infinity))) {
    kept.most = found.most;
    kept.mostAt = found.mostAt;
  }
  kept.windowsOver += found.windowsOver;
}

/** A log's member `time:cost:seq:nonce` (reserve.ts; with rates in dimensions, cost is 'c1,c2,...'). */
export function grantOfMember(member: string, scope: string, dimensioned: boolean): PendingGrant {
  const [time, cost = '', seq] = member.split(':');
  const c = dimensioned ? cost.split(',').map(Number) : Number(cost);
  return { m: member, t: Number(time), c, seq: Number(seq), s: scope };
}

/** The report before any grant: no limiter yet. */
export function emptyFleetReport(): FleetAuditReport {
  return { since: 0, deliveries: 0, windowsOver: 0, rates: [], settledUntil: 0, gaps: 0 };
}
