/**
 * Two strategies of a user's own, written as a user would against the public contract
 * (xstate-throttler/strategies: defineStrategy, StrategyPolicy), and their brute-force oracles.
 */
import type { Rate } from '../../src/index.js';
import { defineStrategy, type StrategyPolicy } from '../../src/strategies/index.js';

/**
 * At most `limit` (by cost) in each window [origin + k × interval, origin + (k + 1) × interval) for every
 * rate, the windows counted from when the policy was made.
 */
export class FixedWindowPolicy implements StrategyPolicy {
  private readonly rates: readonly Rate[];
  private origin: number;
  private starts: number[];
  private used: number[];

  constructor(rates: readonly Rate[], now: number) {
    this.rates = rates;
    this.origin = now;
    this.starts = rates.map(() => Number.NEGATIVE_INFINITY);
    this.used = rates.map(() => 0);
  }

  private windowStart(at: number, interval: number): number {
    return this.origin + Math.floor((at - this.origin) / interval) * interval;
  }

  earliestDelivery(now: number, cost: number): number {
    let earliest = now;
    for (const [index, { limit, interval }] of this.rates.entries()) {
      const start = this.windowStart(now, interval);
      const used = start === this.starts[index] ? (this.used[index] as number) : 0;
      if (used + cost > limit) earliest = Math.max(earliest, start + interval);
    }
    return earliest;
  }

  recordDelivery(at: number, cost: number): void {
    for (const [index, { interval }] of this.rates.entries()) {
      const start = this.windowStart(at, interval);
      if (start !== this.starts[index]) {
        this.starts[index] = start;
        this.used[index] = 0;
      }
      this.used[index] = (this.used[index] as number) + cost;
    }
  }

  /** Every time shifted, as the contract asks: the windows keep their place on the new clock. */
  save(shift: number): unknown {
    return { origin: this.origin + shift, starts: this.starts.map((start) => start + shift), used: [...this.used] };
  }

  load(saved: unknown, shift: number): void {
    const { origin, starts, used } = saved as { origin?: unknown; starts?: unknown; used?: unknown };
    if (typeof origin !== 'number' || !Number.isFinite(origin)) throw new Error('origin must be a finite time');
    if (!Array.isArray(starts) || !Array.isArray(used) || starts.length !== this.rates.length) {
      throw new Error('a fixed window state: starts and used, one per rate');
    }
    for (const [index, count] of used.entries()) {
      if (typeof count !== 'number' || !(count >= 0 && count <= (this.rates[index] as Rate).limit)) {
        throw new Error(`used[${index}] must be a count within the limit`);
      }
    }
    this.origin = origin + shift;
    // A start saved as -Infinity (no delivery yet) comes back as null from JSON.
    this.starts = starts.map((start) => (typeof start === 'number' ? start + shift : Number.NEGATIVE_INFINITY));
    this.used = [...used];
  }
}

export const fixedWindow = defineStrategy({
  name: 'fixed-window',
  createPolicy: (rates, now) => new FixedWindowPolicy(rates, now),
  // k at once count as k singly in the same window: the promise API may lease.
  leases: true,
});

/**
 * A leaky bucket as a meter (GCRA): each delivery of cost c pours c into a bucket of `limit` that leaks
 * `limit` per `interval`; a delivery goes when it fits. One rate; with several, each must hold.
 */
export class LeakyBucketPolicy implements StrategyPolicy {
  private readonly rates: readonly Rate[];
  /** Per rate, when the bucket would be empty (the theoretical arrival time). */
  private readonly emptyAt: number[];

  constructor(rates: readonly Rate[], now: number) {
    this.rates = rates;
    this.emptyAt = rates.map(() => now);
  }

  earliestDelivery(now: number, cost: number): number {
    let earliest = now;
    for (const [index, { limit, interval }] of this.rates.entries()) {
      earliest = Math.max(earliest, (this.emptyAt[index] as number) + (cost * interval) / limit - interval);
    }
    return earliest;
  }

  recordDelivery(at: number, cost: number): void {
    for (const [index, { limit, interval }] of this.rates.entries()) {
      this.emptyAt[index] = Math.max(this.emptyAt[index] as number, at) + (cost * interval) / limit;
    }
  }
}

export const leakyBucket = defineStrategy({
  name: 'leaky-bucket',
  createPolicy: (rates, now) => new LeakyBucketPolicy(rates, now),
});

/** A message: when it arrives and what it costs. */
export interface OwnArrival {
  readonly at: number;
  readonly cost: number;
}

/** Whether a fixed-window limit lets `cost` go at `t`, counting every delivery so far (brute force). */
function fixedAllows(rates: readonly Rate[], sent: readonly OwnArrival[], t: number, cost: number): boolean {
  return rates.every(({ limit, interval }) => {
    const window = Math.floor(t / interval);
    const used = sent.filter((each) => Math.floor(each.at / interval) === window).reduce((sum, d) => sum + d.cost, 0);
    return used + cost <= limit;
  });
}

/**
 * Whether a leaky bucket lets `cost` go at `t`: the level replayed from every delivery so far, in units of
 * interval / limit ms so that it stays an integer (the scenarios pick intervals that are multiples of limits).
 */
function leakyAllows(rates: readonly Rate[], sent: readonly OwnArrival[], t: number, cost: number): boolean {
  return rates.every(({ limit, interval }) => {
    const unit = interval / limit;
    let level = 0;
    let last = 0;
    for (const each of sent) {
      level = Math.max(0, level - (each.at - last)) + each.cost * unit;
      last = each.at;
    }
    return Math.max(0, level - (t - last)) + cost * unit <= interval;
  });
}

/** The times a FIFO throttler sends the arrivals at: each as soon as it, everything before it and the limit allow. */
export function ownOracle(kind: 'fixed' | 'leaky', rates: readonly Rate[], arrivals: readonly OwnArrival[]): number[] {
  const allows = kind === 'fixed' ? fixedAllows : leakyAllows;
  const sent: OwnArrival[] = [];
  let previous = 0;
  for (const { at, cost } of arrivals) {
    let t = Math.max(at, previous);
    // Whole milliseconds: every answer of either policy is one here (the scenarios' rates make it so).
    while (!allows(rates, sent, t, cost)) t += 1;
    sent.push({ at: t, cost });
    previous = t;
  }
  return sent.map((each) => each.at);
}
