/**
 * A region's side of the shares (docs/regions.md): which grant is in force (the largest seq heard, until
 * D after its ask left, on the region's own clock), the limit its regional store keeps (that grant's shares,
 * or 0 once the lease ended), and the bound every ask carries: what may still count in a window not wholly
 * past, max(limit now, min(use, the largest limit in force over the last W(1 + δ) + A)). Pure and
 * clock-free: the caller passes the region's now (ms) to every call.
 */
import { ThrottlerOptionError } from '../../rate/index.js';
import { checkGrant } from './share-checks.js';
import type { ShareAsk, ShareGrant } from './share-messages.js';
import type { ShareTerms } from './share-terms.js';

/** A stretch of the region's clock with one limit in force. */
interface LimitSpell {
  readonly from: number;
  to: number;
  readonly limits: readonly number[];
}

export class RegionShare {
  private asks = 0;
  /** Asks out, by number: when each left (the lease of its grant counts from then). */
  private readonly sentAt = new Map<number, number>();
  /** The limits in force, newest last, kept while they may still count (the last W(1 + δ) + A). */
  private spells: LimitSpell[] = [];
  /** k: the largest grant seq applied (0: none). */
  applied = 0;

  constructor(
    readonly region: string,
    readonly terms: ShareTerms,
  ) {}

  /** The limit per rate in force at `now`: the applied grant's shares, or 0 once its lease ended. */
  limits(now: number): number[] {
    const current = this.spells.at(-1);
    return current !== undefined && now < current.to ? [...current.limits] : this.terms.rates.map(() => 0);
  }

  /** When the grant in force ends (−Infinity with none). */
  leaseEndsAt(): number {
    return this.spells.at(-1)?.to ?? Number.NEGATIVE_INFINITY;
  }

  /**
   * An ask to send now, with the bound and `demand` (cost units waiting plus the use). `use` per rate,
   * where the regional store can tell it (docs/regions.md, "Use"), lets home take back a share at once;
   * without it the bound is the largest limit of the last W(1 + δ) + A.
   */
  ask(now: number, demand: number, use?: readonly number[]): ShareAsk {
    if (typeof demand !== 'number' || !Number.isFinite(demand) || demand < 0) {
      throw new ThrottlerOptionError(
        'demand',
        "a finite number, 0 or more (the region's waiting work and use)",
        demand,
      );
    }
    if (
      use !== undefined &&
      (!Array.isArray(use) || use.length !== this.terms.rates.length || use.some((n) => !(n >= 0)))
    ) {
      throw new ThrottlerOptionError('use', 'one count, 0 or more, per rate', use);
    }
    this.asks += 1;
    for (const [ask, at] of this.sentAt) if (now - at >= this.terms.leaseMs) this.sentAt.delete(ask);
    this.sentAt.set(this.asks, now);
    return { region: this.region, ask: this.asks, applied: this.applied, bound: this.bound(now, use), demand };
  }

  /** Whether `hear` would apply `grant` at `now`: the answer to an ask out, the largest seq yet, its lease not ended. */
  accepts(grant: ShareGrant, now: number): boolean {
    checkGrant(grant, this.terms.rates.length);
    const sent = this.sentAt.get(grant.ask);
    return sent !== undefined && grant.seq > this.applied && now < sent + Math.min(grant.leaseMs, this.terms.leaseMs);
  }

  /** A grant heard at `now`: applied when its seq is the largest yet and its lease has not ended. */
  hear(grant: ShareGrant, now: number): boolean {
    if (!this.accepts(grant, now)) return false;
    const to = (this.sentAt.get(grant.ask) as number) + Math.min(grant.leaseMs, this.terms.leaseMs);
    this.sentAt.delete(grant.ask);
    const current = this.spells.at(-1);
    if (current !== undefined) current.to = Math.min(current.to, now);
    this.spells.push({ from: now, to, limits: [...grant.shares] });
    this.applied = grant.seq;
    return true;
  }

  /** c per rate (Lemma 1): never below the limit in force, at most the largest recent one, at most the use. */
  bound(now: number, use?: readonly number[]): number[] {
    const reach = Math.max(...this.terms.regionalIntervalMs) + this.terms.reserveAheadMs;
    this.spells = this.spells.filter((spell, i) => spell.to > now - reach || i === this.spells.length - 1);
    const limits = this.limits(now);
    return limits.map((limit, i) => {
      const since = now - (this.terms.regionalIntervalMs[i] as number) - this.terms.reserveAheadMs;
      let recent = limit;
      for (const spell of this.spells) if (spell.to > since) recent = Math.max(recent, spell.limits[i] as number);
      const used = use?.[i];
      return Math.max(limit, used === undefined ? recent : Math.min(used, recent));
    });
  }
}
