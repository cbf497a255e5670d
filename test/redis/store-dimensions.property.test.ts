import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import type { RedisSharedLimiter } from '../../src/redis/shared-limiter.js';
import type { FleetAuditReport } from '../../src/store/index.js';
import { grantTimeOf, redisForFile } from '../support/redis.js';
import { type FleetArrival, StoreFleet } from '../support/store-fleet.js';

/** FC_SEED (and FC_PATH) replay a run a report named. */
const REPLAY =
  process.env.FC_SEED === undefined
    ? {}
    : { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true };

/**
 * Rates in dimensions on a shared store (real Redis, virtual Redis time): 2-3 processes share random
 * rates in 1-3 dimensions (overall and a channel's), and ask for messages whose costs name some of the
 * dimensions (or are a number: that cost in each). Every message is granted in the end (a 'later' is asked
 * again), a few are given back, and a few are settled with actual costs per dimension. A brute force over
 * the grants' Redis times finds no window of any rate of any dimension, overall or in the channel, over its
 * limit (counting each grant's cost in that dimension, its actual cost once settled below the estimate),
 * and the fleet audit (store.audit(), read more often than the shortest interval) agrees.
 */
const file = redisForFile();
const NAMES = ['requests', 'tokens', '__proto__'];
const INTERVALS = [40, 100, 250];

interface DimRate {
  dim: string;
  limit: number;
  interval: number;
}

interface Message {
  at: number;
  client: number;
  channel: 'a' | undefined;
  /** Per dimension (absent: 0), or a number. */
  cost: Record<string, number> | number;
  release: boolean;
  /** Per dimension, a share of the estimate to settle with (<= 1), or null. */
  settle: number | null;
}

const rateArb = (dim: string) =>
  fc.record({
    dim: fc.constant(dim),
    limit: fc.integer({ min: 1, max: 12 }),
    interval: fc.constantFrom(...INTERVALS),
  });

const scenarioArb = fc
  .record({
    dims: fc.subarray(NAMES, { minLength: 1 }),
    processes: fc.integer({ min: 2, max: 3 }),
    withChannel: fc.boolean(),
  })
  .chain(({ dims, processes, withChannel }) =>
    fc
      .record({
        overall: fc.tuple(...dims.map((dim) => fc.array(rateArb(dim), { minLength: 1, maxLength: 2 }))),
        channel: fc.subarray(dims, { minLength: 1 }).chain((names) => fc.tuple(...names.map((dim) => rateArb(dim)))),
      })
      .chain(({ overall, channel }) => {
        const overallRates: DimRate[] = overall.flat();
        const channelRates: DimRate[] = withChannel ? channel : [];
        const message = fc.record({
          at: fc.integer({ min: 0, max: 300 }),
          client: fc.integer({ min: 0, max: processes - 1 }),
          channel: withChannel ? fc.constantFrom<'a' | undefined>('a', undefined) : fc.constant(undefined),
          shares: fc.array(fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 3 }), {
            minLength: dims.length,
            maxLength: dims.length,
          }),
          asNumber: fc.boolean(),
          release: fc.boolean(),
          settle: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 2 }),
        });
        return fc.array(message, { minLength: 1, maxLength: 30 }).map((raw) => {
          const messages: Message[] = [];
          for (const item of raw) {
            const applies = (dim: string) =>
              [...overallRates, ...(item.channel === 'a' ? channelRates : [])].filter((rate) => rate.dim === dim);
            const smallest = (dim: string) => Math.min(...applies(dim).map((rate) => rate.limit));
            let cost: Record<string, number> | number;
            if (item.asNumber) {
              cost = Math.max(1, Math.floor(Math.min(...dims.map(smallest)) * (item.shares[0] ?? 1)));
            } else {
              cost = {};
              for (const [index, dim] of dims.entries()) {
                const share = item.shares[index];
                if (share === null || share === undefined) continue;
                put(cost, dim, Math.round(smallest(dim) * share));
              }
              if (!Object.values(cost).some((value) => value > 0)) {
                put(cost, dims[0] as string, 1);
              }
            }
            messages.push({
              at: item.at,
              client: item.client,
              channel: item.channel,
              cost,
              release: item.release && item.at % 5 === 0,
              settle: item.settle,
            });
          }
          return { dims, processes, overallRates, channelRates, withChannel, messages };
        });
      }),
  );

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** A field of any name (`__proto__` too). */
function put(record: object, name: string, value: unknown): void {
  Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
}

const costIn = (cost: Record<string, number> | number, dim: string): number =>
  typeof cost === 'number' ? cost : Object.hasOwn(cost, dim) ? (cost[dim] as number) : 0;

const asRates = (rates: readonly DimRate[]) => {
  const map = new Map<string, string[]>();
  for (const rate of rates) map.set(rate.dim, [...(map.get(rate.dim) ?? []), `${rate.limit}/${rate.interval}ms`]);
  const record: Record<string, string[]> = {};
  for (const [dim, list] of map) put(record, dim, list);
  return record;
};

interface Granted {
  t: number;
  channel: 'a' | undefined;
  cost: Record<string, number> | number;
  reservation: string;
  client: number;
  share: number | null;
}

async function run(scenario: Scenario) {
  const name = file.fresh('dims-prop');
  let now = 1000;
  const stores = Array.from({ length: scenario.processes }, () =>
    createRedisStore({ redis: file.redis, name, testClock: () => now, commandTimeout: 10_000 }),
  );
  const config = {
    strategy: 'sliding-window' as const,
    rates: asRates(scenario.overallRates),
    ...(scenario.withChannel ? { channels: { a: asRates(scenario.channelRates) } } : {}),
  };
  const limiters = stores.map((store) => store.open(config as never) as RedisSharedLimiter);
  const waiting = scenario.messages.map((message) => ({ message, retryAt: 1000 + message.at }));
  const granted: Granted[] = [];
  const released: Granted[] = [];
  const toSettle: Array<{ grant: Granted; at: number }> = [];
  let steps = 0;
  await limiters[0]?.audit();
  while (waiting.length > 0 || toSettle.length > 0) {
    steps += 1;
    expect(steps).toBeLessThan(5_000);
    for (let client = 0; client < scenario.processes; client += 1) {
      const due = waiting.filter((entry) => entry.message.client === client && entry.retryAt <= now);
      if (due.length === 0) continue;
      const limiter = limiters[client] as RedisSharedLimiter;
      const outcomes = await limiter.reserve(
        due.map(({ message }) => ({ channel: message.channel, cost: message.cost as never })),
      );
      for (const [index, outcome] of outcomes.entries()) {
        const entry = due[index] as (typeof due)[number];
        if (outcome.kind === 'refused') throw outcome.error;
        if (outcome.kind === 'later') {
          entry.retryAt = now + Math.max(1, Math.ceil(outcome.retryAfterMs));
          continue;
        }
        waiting.splice(waiting.indexOf(entry), 1);
        const grant: Granted = {
          t: grantTimeOf(outcome.reservation),
          channel: entry.message.channel,
          cost: entry.message.cost,
          reservation: outcome.reservation,
          client,
          share: entry.message.settle,
        };
        if (entry.message.release && grant.t > now) {
          await limiter.release([outcome.reservation]);
          released.push(grant);
        } else {
          granted.push(grant);
          if (grant.share !== null) toSettle.push({ grant, at: Math.max(now, grant.t) + 7 });
        }
      }
    }
    for (const item of [...toSettle]) {
      if (item.at > now) continue;
      toSettle.splice(toSettle.indexOf(item), 1);
      const share = item.grant.share ?? 1;
      const actual: Record<string, number> = {};
      for (const dim of scenario.dims) {
        put(actual, dim, Math.floor(costIn(item.grant.cost, dim) * share));
      }
      await (limiters[item.grant.client] as RedisSharedLimiter).settle(item.grant.reservation, actual as never);
      item.grant.cost = actual;
    }
    now += 5;
    if (steps % 6 === 0) await limiters[steps % scenario.processes]?.audit();
  }
  // Every grant counted by the audit: read in steps shorter than any window.
  const until = now + 2 * Math.max(...INTERVALS) + 50;
  while (now < until) {
    now += 20;
    await limiters[0]?.audit();
  }
  const report = await (limiters[1] as RedisSharedLimiter).audit();
  for (const store of stores) await store.close();
  return { granted, released, report };
}

/** Windows over: for each scope and rate, each window starting at a grant's time. */
function overfull(scenario: Scenario, granted: ReadonlyArray<Pick<Granted, 't' | 'channel' | 'cost'>>): string[] {
  const found: string[] = [];
  const scopes: Array<[string, readonly DimRate[], (grant: Pick<Granted, 'channel'>) => boolean]> = [
    ['overall', scenario.overallRates, () => true],
    ['a', scenario.channelRates, (grant) => grant.channel === 'a'],
  ];
  for (const [scope, rates, holds] of scopes) {
    for (const rate of rates) {
      for (const start of granted) {
        let sum = 0;
        for (const grant of granted) {
          if (holds(grant) && grant.t >= start.t && grant.t < start.t + rate.interval)
            sum += costIn(grant.cost, rate.dim);
        }
        if (sum > rate.limit) found.push(`${scope} ${rate.dim} ${rate.limit}/${rate.interval} at ${start.t}: ${sum}`);
      }
    }
  }
  return found;
}

describe('rates in dimensions on a shared store (real Redis, virtual Redis time)', () => {
  it('grants every message, holds every rate of every dimension overall and per channel, and the fleet audit agrees', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { granted, released, report } = await run(scenario);
        expect(granted.length + released.length).toBe(scenario.messages.length);
        expect(overfull(scenario, granted)).toEqual([]);
        expect(report.gaps).toBe(0);
        expect(report.windowsOver).toBe(0);
        // A grant settled at 0 in every dimension left the logs as a give-back does.
        const kept = granted.filter((grant) => scenario.dims.some((dim) => costIn(grant.cost, dim) > 0));
        expect(report.deliveries).toBe(kept.length);
        const dims = new Set(report.rates.map((rate) => rate.dimension));
        for (const dim of dims) expect(scenario.dims).toContain(dim);
      }),
      { numRuns: 25, ...REPLAY },
    );
  });
});

describe('throttlers with rates in dimensions sharing a store (real Redis, virtual time)', () => {
  it('lose nothing, keep every rate of every dimension overall and per channel, and the fleet audit agrees', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const rate = asRates(scenario.overallRates);
        const fleet = new StoreFleet(
          file.redis,
          file.fresh('dims-fleet'),
          scenario.processes,
          {
            rate,
            strategy: 'sliding-window',
            ...(scenario.withChannel ? { channels: { a: asRates(scenario.channelRates) } } : {}),
          } as never,
          { grantGraceMs: 0 },
        );
        try {
          const arrivals: FleetArrival[] = scenario.messages
            .map((message, n) => ({
              at: message.at,
              throttler: message.client,
              channel: message.channel,
              n,
              cost: message.cost,
            }))
            .sort((x, y) => x.at - y.at || x.n - y.n);
          let audited = Number.NEGATIVE_INFINITY;
          let report: FleetAuditReport | undefined;
          const audit = async (force = false) => {
            if (!force && fleet.clock.now() - audited < 15) return;
            audited = fleet.clock.now();
            report = await fleet.throttlers[0]?.store.audit();
          };
          const steps = await fleet.run(arrivals, Number.POSITIVE_INFINITY, () => audit(), 5000, 15);
          expect(steps).toBeLessThan(5000);
          for (let step = 0; step < 40; step++) {
            fleet.clock.increment(15);
            await audit(true);
          }
          const deliveries = fleet.deliveries;
          expect(deliveries.map((d) => d.n).sort((a, b) => a - b)).toEqual(
            arrivals.map((a) => a.n).sort((a, b) => a - b),
          );
          const sent = deliveries.map((d) => ({
            t: d.at,
            channel: d.channel as 'a' | undefined,
            cost: (scenario.messages[d.n] as Message).cost,
          }));
          expect(overfull(scenario, sent)).toEqual([]);
          expect(report?.windowsOver).toBe(0);
          expect(report?.gaps).toBe(0);
          expect(report?.deliveries).toBe(deliveries.length);
        } finally {
          await fleet.stop();
        }
      }),
      { numRuns: 20, ...REPLAY },
    );
  }, 120_000);
});
