/**
 * Home's book (docs/regions.md, "The invariant"): per region, one entry per grant, each live for the span
 * S after it was granted, lowered by the region's bounds; a grant never takes more than the room the other
 * regions' largest live entries leave, so at every instant Σ_r B_r ≤ L per rate. Pure and clock-free: the
 * caller passes home's now (ms, its own clock) to every call. O(regions × entries) per ask, once per lease.
 */
import { splitByDemand } from './demand-split.js';
import { checkAsk, checkExpected } from './share-checks.js';
import type { ShareAsk, ShareGrant } from './share-messages.js';
import type { ShareTerms } from './share-terms.js';

/** One grant as home keeps it: its value and expiry per rate. */
interface BookEntry {
  readonly seq: number;
  readonly values: number[];
  readonly until: readonly number[];
}

/** What home knows of one region. */
interface RegionEntry {
  entries: BookEntry[];
  demand: number;
  lastAskAt: number;
}

/** How a book starts. */
export interface ShareBookStart {
  /** Home's now as it starts. */
  readonly now: number;
  /** The seq of its first grant less one: above any seq granted before (a restart), e.g. from a counter kept elsewhere. */
  readonly lastSeq?: number | undefined;
  /** True (default) when grants made before may still count: nothing is granted for the longest span. */
  readonly fresh?: boolean | undefined;
  /** The regions to expect: one not heard from yet counts in the split at the largest demand heard, for `awaitRegionsMs`. */
  readonly regions?: readonly string[] | undefined;
  /** How long after it may first grant (its start, or S later when fresh) an unheard listed region still counts (default W(1 + δ) + A of the longest rate). */
  readonly awaitRegionsMs?: number | undefined;
}

export class ShareBook {
  private readonly regions = new Map<string, RegionEntry>();
  private seq: number;
  /** Listed regions not heard from yet (docs/regions.md, "Regions to expect"); emptied at `awaitUntil`. */
  private readonly awaiting: Set<string>;
  private readonly awaitUntil: number;
  /** Home's now before which it grants nothing (rule 3: a book that may have been lost). */
  readonly grantsFrom: number;

  constructor(
    readonly terms: ShareTerms,
    start: ShareBookStart,
  ) {
    this.seq = start.lastSeq ?? 0;
    this.grantsFrom = start.fresh === false ? start.now : start.now + Math.max(...terms.spanMs);
    const awaitDefault = Math.max(...terms.regionalIntervalMs) + terms.reserveAheadMs;
    const expected = checkExpected(start.regions, start.awaitRegionsMs, awaitDefault);
    this.awaiting = expected.regions;
    this.awaitUntil = this.grantsFrom + expected.awaitMs;
  }

  /** Answers one ask at home's now: applies its bound, then grants what the demand rule and the room allow. */
  answer(ask: ShareAsk, now: number): ShareGrant {
    checkAsk(ask, this.terms.rates.length);
    this.prune(now);
    const region = this.regions.get(ask.region) ?? { entries: [], demand: 0, lastAskAt: now };
    this.regions.set(ask.region, region);
    for (const entry of region.entries) {
      if (entry.seq > ask.applied) continue;
      ask.bound.forEach((bound, i) => {
        entry.values[i] = Math.min(entry.values[i] as number, bound);
      });
    }
    region.demand = ask.demand;
    region.lastAskAt = now;
    // Heard: an ask with demand. An agent asks before its processes have work, so an ask of 0 keeps the wait.
    if (ask.demand > 0) this.awaiting.delete(ask.region);
    const shares = this.terms.rates.map(() => 0);
    if (now < this.grantsFrom) return { ask: ask.ask, seq: 0, shares, leaseMs: this.terms.leaseMs };
    const demands = this.demands(now);
    this.terms.rates.forEach((rate, i) => {
      const target = splitByDemand(rate.limit, demands).get(ask.region) ?? 0;
      shares[i] = Math.max(0, Math.min(target, rate.limit - this.heldByOthers(ask.region, i, now)));
    });
    this.seq += 1;
    const until = this.terms.spanMs.map((span) => now + span);
    if (shares.some((share) => share > 0)) region.entries.push({ seq: this.seq, values: [...shares], until });
    return { ask: ask.ask, seq: this.seq, shares, leaseMs: this.terms.leaseMs };
  }

  /** B_r per rate: the largest live entry of `region` (0 with none). */
  held(region: string, now: number): number[] {
    const entries = this.regions.get(region)?.entries ?? [];
    return this.terms.rates.map((_rate, i) => heldIn(entries, i, now));
  }

  /** Σ_r B_r per rate: what the invariant keeps at most the limit. */
  heldInAll(now: number): number[] {
    return this.terms.rates.map((_rate, i) => {
      let sum = 0;
      for (const region of this.regions.values()) sum += heldIn(region.entries, i, now);
      return sum;
    });
  }

  /** Each heard region's demand, and each listed region with no demand heard yet at the largest heard, until `awaitUntil`. */
  private demands(now: number): Map<string, number> {
    const demands = new Map([...this.regions].map(([name, known]) => [name, known.demand]));
    if (now >= this.awaitUntil) this.awaiting.clear();
    if (this.awaiting.size === 0) return demands;
    const largest = Math.max(...demands.values());
    for (const name of this.awaiting) demands.set(name, largest);
    return demands;
  }

  private heldByOthers(asking: string, rate: number, now: number): number {
    let sum = 0;
    for (const [name, region] of this.regions) if (name !== asking) sum += heldIn(region.entries, rate, now);
    return sum;
  }

  /** Drops expired entries, and forgets a region (its demand too) that has none and has not asked for a span. */
  private prune(now: number): void {
    const longest = Math.max(...this.terms.spanMs);
    for (const [name, region] of this.regions) {
      region.entries = region.entries.filter((entry) => entry.until.some((until) => now < until));
      if (region.entries.length === 0 && now - region.lastAskAt >= longest) this.regions.delete(name);
    }
  }
}

function heldIn(entries: readonly BookEntry[], rate: number, now: number): number {
  let most = 0;
  for (const entry of entries) {
    if (now < (entry.until[rate] as number)) most = Math.max(most, entry.values[rate] as number);
  }
  return most;
}
