import { afterEach, describe, expect, it } from 'vitest';
import { fluidShares, receivedIn } from '../support/fair-oracle.js';
import { overfullWindows, type RateConfig } from '../support/oracle.js';
import { redisForFile } from '../support/redis.js';
import { type FleetArrival, type StoreFleet, weightedFleet } from '../support/store-fleet.js';

/**
 * Weighted fairness on the store: the finish tags are the fleet's, in Redis (src/redis/lua/fair-tags.ts),
 * so while the overall limit binds each backlogged key obtains its `w / Σw` whatever process holds it.
 * Throttlers on one limiter in virtual time (real Redis, its clock the test's), each heavy key's
 * backlog spread over every process as a load balancer would (and, in the steady stream, each key in
 * one process); judged per window on the deliveries' times, and by the fleet's audit of the grants.
 */
const file = redisForFile();
const fleets: StoreFleet[] = [];
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.stop();
});

const OVERALL = { limit: 30, interval: 1000 };
const KEY = { limit: 1000, interval: 1000 };
const WEIGHTS: Record<string, number> = { heavy3: 3, heavy2: 2, heavy1: 1, light: 1 };
const CONFIG: RateConfig = { overall: [OVERALL], channels: {} };

/** Three heavy keys' 600 waiting each, spread over the processes, and a light key's one message a second. */
function heavyAndLight(processes: number, seconds: number): FleetArrival[] {
  const arrivals: FleetArrival[] = [];
  let n = 0;
  for (let i = 0; i < 600; i++)
    for (const channel of ['heavy3', 'heavy2', 'heavy1'])
      arrivals.push({ at: 0, throttler: i % processes, channel, n: n++ });
  for (let s = 0; s < seconds; s++)
    arrivals.push({ at: 250 + 1000 * s, throttler: s % processes, channel: 'light', n: 10_000 + s });
  return arrivals;
}

async function runScenario(processes: number, seconds: number) {
  const fleet = weightedFleet(file.redis, file.fresh(`fair-${processes}`), processes, {
    overall: OVERALL,
    key: KEY,
    weights: new Map(Object.entries(WEIGHTS)),
  });
  fleets.push(fleet);
  const last = await fleet.runAudited(heavyAndLight(processes, seconds), seconds * 1000, 400, 20_000, 400);
  return { fleet, last };
}

/** Each heavy key's deliveries in each whole window [s, s + 1000) after the first, and its fair part. */
function sharesPerWindow(fleet: StoreFleet, seconds: number) {
  const rows: Array<{ window: number; key: string; got: number; fair: number }> = [];
  for (let s = 1; s < seconds; s++) {
    const from = s * 1000;
    const inWindow = fleet.deliveries.filter((delivery) => delivery.at >= from && delivery.at < from + 1000);
    // Backlogged in this window: the heavy keys always, the light key for its one message.
    const light = inWindow.filter((delivery) => delivery.channel === 'light').length;
    const room = OVERALL.limit - light;
    for (const key of ['heavy3', 'heavy2', 'heavy1']) {
      const got = inWindow.filter((delivery) => delivery.channel === key).length;
      rows.push({ window: s, key, got, fair: (room * (WEIGHTS[key] as number)) / 6 });
    }
  }
  return rows;
}

describe('weighted fairness on the store', () => {
  for (const processes of [1, 3]) {
    it(`gives each backlogged key w / Σw of the overall limit per window, in ${processes} process(es)`, async () => {
      const seconds = 8;
      const { fleet, last } = await runScenario(processes, seconds);
      const rows = sharesPerWindow(fleet, seconds);
      // Within one message (the largest cost) plus one, of the fair part, in every window.
      const off = rows.filter(({ got, fair }) => Math.abs(got - fair) > 2);
      expect(off).toEqual([]);
      // The light key's every message went within its fair-share service time plus one interval.
      const lightWaits = fleet.deliveries
        .filter((delivery) => delivery.channel === 'light')
        .map((delivery) => delivery.at - (fleet.sentAt.get(delivery.n) as number));
      expect(lightWaits).toHaveLength(seconds);
      expect(Math.max(...lightWaits)).toBeLessThanOrEqual((OVERALL.interval * 7) / OVERALL.limit + OVERALL.interval);
      // Strict: no window over, in the deliveries and in Redis' own grants; nothing lost.
      expect(overfullWindows(CONFIG, fleet.deliveries)).toEqual([]);
      expect(last.windowsOver).toBe(0);
      expect(last.gaps).toBe(0);
      const ns = fleet.deliveries.map((delivery) => delivery.n);
      expect(new Set(ns).size).toBe(ns.length);
    });
  }
});

describe('weighted fairness on the store, a steady stream', () => {
  // One process; then four, each tenant's messages all reaching one of them (sharded, no load balancer):
  // the shares are the fleet's, kept by the finish tags in Redis, not by each process's own order.
  for (const processes of [1, 4])
    it(`keeps the fluid share of each key per window while keys offer 60 a second each into 400 a second, ${processes} process(es)`, async () => {
      const weights = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2];
      const weightOf = new Map(weights.map((weight, index) => [`h${index}`, weight]));
      const overall = { limit: 400, interval: 1000 };
      const fleet = weightedFleet(file.redis, file.fresh(`fair-stream-${processes}`), processes, {
        overall,
        key: { limit: 1000, interval: 1000 },
        weights: weightOf,
      });
      fleets.push(fleet);
      const arrivals: FleetArrival[] = [];
      let n = 0;
      const seconds = 6;
      // Every 10 ms, each key in turn sends in 3 of 5 steps: 60 a second each, 600 offered.
      for (let t = 0; t < seconds * 1000; t += 10)
        for (let k = 0; k < weights.length; k++)
          if ((t / 10 + k) % 5 < 3) arrivals.push({ at: t, throttler: k % processes, channel: `h${k}`, n: n++ });
      await fleet.run(arrivals, seconds * 1000, undefined, 100_000);
      // Water-filling: each wants 60 a window; the weight-4 keys get all of it, the rest share what is left.
      const ideal = fluidShares(
        [...weightOf].map(([key, weight]) => ({ key, weight, wants: 60 })),
        overall.limit,
      );
      // Per window from 2 s on, and on average over those windows (measured with the tags in Redis: 4 to 6
      // at worst, 4 on average, in 1 and in 4 processes; with each process's own order, 4 processes gave
      // the weight-1 keys 50 a window where 18.7 is fair, 47 at worst).
      const gaps: number[] = [];
      const whole = new Map<string, number>();
      for (let s = 2; s < seconds; s++) {
        const got = receivedIn(fleet.deliveries, s * 1000, (s + 1) * 1000);
        for (const key of weightOf.keys()) {
          gaps.push(Math.abs((got.get(key) ?? 0) - (ideal.get(key) as number)));
          whole.set(key, (whole.get(key) ?? 0) + (got.get(key) ?? 0) / (seconds - 2));
        }
      }
      const averageGaps = [...weightOf.keys()].map((key) =>
        Math.abs((whole.get(key) as number) - (ideal.get(key) as number)),
      );
      expect(Math.max(...averageGaps)).toBeLessThanOrEqual(5);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(8);
      expect(overfullWindows({ overall: [overall], channels: {} }, fleet.deliveries)).toEqual([]);
    });
});

describe('weighted fairness on the store, light tenants among a steady stream', () => {
  it('sends every light tenant within its fair-share service time plus one interval, in calls bounded per message', async () => {
    // Four processes; ten heavy tenants of weights 1 to 4 offering 60 a second each, capped at 50 by
    // their own rate, into 400 a second; two new light tenants every 10 ms with one message each (200 a
    // second, as in W8), in turn per process.
    const weights = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2];
    const weightOf = new Map(weights.map((weight, index) => [`h${index}`, weight]));
    const processes = 4;
    const fleet = weightedFleet(file.redis, file.fresh('fair-light'), processes, {
      overall: { limit: 400, interval: 1000 },
      key: { limit: 50, interval: 1000 },
      weights: weightOf,
    });
    fleets.push(fleet);
    const arrivals: FleetArrival[] = [];
    let n = 0;
    const seconds = 8;
    for (let t = 0; t < seconds * 1000; t += 10) {
      for (let k = 0; k < weights.length; k++)
        if ((t / 10 + k) % 5 < 3)
          arrivals.push({ at: t, throttler: (k + t / 10) % processes, channel: `h${k}`, n: n++ });
      for (const j of [0, 1])
        arrivals.push({
          at: t,
          throttler: (t / 10 + j) % processes,
          channel: `light-${t}-${j}`,
          n: 1_000_000 + 2 * t + j,
        });
    }
    // Bounded in steps: a storm of calls at one moment (a line told again and again) never lets a step end.
    await fleet.run(arrivals, seconds * 1000 + 3000, undefined, 20_000);
    const lightWaits = fleet.deliveries
      .filter(({ channel }) => String(channel).startsWith('light-'))
      .map(({ n: id, at }) => at - (fleet.sentAt.get(id) as number));
    expect(lightWaits).toHaveLength(seconds * 200);
    // Its weight 1 among the heavy tenants' 23 and the light ones waiting with it (about 25: 200 a second
    // for some 120 ms each): 1 / (400 / 48) s = 120 ms of service, plus the interval (measured: 210 ms at
    // the median, 770 at the 99th percentile, 940 at worst; 840 before held keys waited for their room;
    // 1,650 before a tenant capped by its own rate stopped saving credit).
    expect(Math.max(...lightWaits)).toBeLessThanOrEqual(120 + 1000);
    const calls = fleet.throttlers.reduce((sum, throttler) => sum + throttler.calls(), 0);
    expect(calls / fleet.deliveries.length).toBeLessThan(2);
    expect(overfullWindows({ overall: [{ limit: 400, interval: 1000 }], channels: {} }, fleet.deliveries)).toEqual([]);
    // Virtual time: the bound is on the run's CPU alone (35 s on a quiet machine, over 60 beside a CPU hog).
  }, 180_000);
});

describe('weighted fairness on the store, with other settings', () => {
  const weights = new Map([
    ['__proto__', 3],
    ['b', 1],
  ]);
  const limits = { overall: { limit: 20, interval: 1000 }, key: { limit: 1000, interval: 1000 }, weights };
  /** Two processes, 100 messages of each key spread over them; the part `__proto__` (weight 3) gets from 1 s to 4 s. */
  async function shareOfHeavier(fleet: StoreFleet, cost?: Record<string, number>) {
    fleets.push(fleet);
    const arrivals: FleetArrival[] = [];
    let n = 0;
    for (let i = 0; i < 100; i++)
      for (const channel of ['__proto__', 'b'])
        arrivals.push({ at: 0, throttler: i % 2, channel, n: n++, ...(cost === undefined ? {} : { cost }) });
    await fleet.run(arrivals, 4000, undefined, 50_000);
    const count = (key: string) => fleet.deliveries.filter(({ channel, at }) => channel === key && at >= 1000).length;
    return count('__proto__') / (count('__proto__') + count('b'));
  }

  it('keeps the weights with a token bucket (its own next free time ahead by its own grants does not hold a line)', async () => {
    // Measured: 46 to 15 (before: 31 to 30, every line taken for held by its own rate).
    const fleet = weightedFleet(
      file.redis,
      file.fresh('fair-tb'),
      2,
      limits,
      { strategy: 'token-bucket' },
      { grantGraceMs: 0 },
    );
    expect(await shareOfHeavier(fleet)).toBeCloseTo(0.75, 1);
  });

  it('keeps the weights with costs in dimensions (a cost weighs its largest dimension, as without a store)', async () => {
    // Measured: 60 to 20 (before: 66 to 14, the process's tags NaN).
    const fleet = weightedFleet(file.redis, file.fresh('fair-dims'), 2, limits, {
      rate: { requests: '20/1s', tokens: '1000/1s' },
      keys: { rate: { requests: '1000/1s' } },
    });
    expect(await shareOfHeavier(fleet, { requests: 1, tokens: 10 })).toBeCloseTo(0.75, 1);
  });

  it('keeps the room used and the calls few with a grace: a waiting line that left holds nothing for long', async () => {
    // A trickle that keeps emptying (weight 1) and a backlog (weight 3), 100 a second, grace 200 ms.
    // Measured: 600 sent in 6 s in 54 calls (before: 509 in 3,504 calls, lines told to retry every 1 ms).
    const fleet = weightedFleet(
      file.redis,
      file.fresh('fair-grace'),
      2,
      { overall: { limit: 100, interval: 1000 }, key: { limit: 1000, interval: 1000 }, weights: new Map([['b', 3]]) },
      {},
      { grantGraceMs: 200 },
    );
    fleets.push(fleet);
    const arrivals: FleetArrival[] = [];
    let n = 0;
    for (let i = 0; i < 2000; i++) arrivals.push({ at: 0, throttler: i % 2, channel: 'b', n: n++ });
    for (let t = 0; t < 6000; t += 97) arrivals.push({ at: t, throttler: (t / 97) % 2, channel: 'a', n: n++ });
    arrivals.sort((x, y) => x.at - y.at);
    await fleet.run(arrivals, 6000, undefined, 20_000);
    for (let s = 0; s < 5; s++)
      expect(fleet.deliveries.filter(({ at }) => at >= s * 1000 && at < (s + 1) * 1000)).toHaveLength(100);
    expect(fleet.throttlers.reduce((sum, throttler) => sum + throttler.calls(), 0)).toBeLessThan(150);
    expect(overfullWindows({ overall: [{ limit: 100, interval: 1000 }], channels: {} }, fleet.deliveries)).toEqual([]);
  });
});

describe('weighted fairness on the store, keys with their own rate near the overall one', () => {
  // Issue 33: a key rate at the overall rate, which can never bind, held a key a window out of two (its
  // window was counted at now, not where its grant goes): 1:4 at 40 a second shared 50/50. Each key's
  // backlog in one process (the heavy one first); the fair part is water-filling with each key wanting at
  // most its own limit (a key rate below its weighted share binds: the others get what it cannot use).
  const cases = [
    { processes: 1, weights: [1, 4], limit: 40, keyLimit: 40 },
    { processes: 1, weights: [1, 4], limit: 40, keyLimit: 45 },
    { processes: 1, weights: [1, 4], limit: 40, keyLimit: 30 },
    { processes: 2, weights: [2, 2], limit: 53, keyLimit: 32 },
    { processes: 3, weights: [1, 2, 4], limit: 40, keyLimit: 40 },
  ];
  for (const { processes, weights, limit, keyLimit } of cases)
    it(`weights ${weights.join(':')} at ${limit} a second, keys at ${keyLimit}, in ${processes} process(es): each key its water-filled share per window`, async () => {
      const names = weights.map((_, index) => `k${index}`);
      const fleet = weightedFleet(file.redis, file.fresh(`fair-own-${keyLimit}-${processes}`), processes, {
        overall: { limit, interval: 1000 },
        key: { limit: keyLimit, interval: 1000 },
        weights: new Map(names.map((name, index) => [name, weights[index] as number])),
      });
      fleets.push(fleet);
      const seconds = 6;
      const arrivals: FleetArrival[] = [];
      let n = 0;
      for (const [index, channel] of [...names.entries()].reverse())
        for (let i = 0; i < limit * seconds; i++)
          arrivals.push({ at: 0, throttler: index % processes, channel, n: n++ });
      await fleet.run(arrivals, seconds * 1000, undefined, 100_000);
      const ideal = fluidShares(
        names.map((key, index) => ({ key, weight: weights[index] as number, wants: keyLimit })),
        limit,
      );
      const off: string[] = [];
      // From the second window on (the first goes as the processes ask).
      for (let s = 1; s < seconds; s++) {
        const got = receivedIn(fleet.deliveries, s * 1000, (s + 1) * 1000);
        for (const key of names)
          if (Math.abs((got.get(key) ?? 0) - (ideal.get(key) as number)) > 3)
            off.push(`window ${s} ${key}: ${got.get(key) ?? 0} of ${(ideal.get(key) as number).toFixed(1)}`);
      }
      expect(off).toEqual([]);
      expect(overfullWindows({ overall: [{ limit, interval: 1000 }], channels: {} }, fleet.deliveries)).toEqual([]);
      for (const key of names) {
        const own = fleet.deliveries.filter(({ channel }) => channel === key);
        expect(overfullWindows({ overall: [{ limit: keyLimit, interval: 1000 }], channels: {} }, own)).toEqual([]);
      }
    });
});

describe('weighted fairness on the store, a light tenant behind a noisy one', () => {
  // Issue 33: a light tenant (weight 1) sending a burst of 8 every 2 s beside a noisy one (weight 4) that
  // stays backlogged (a steady 60 a second, or 880 waiting from the start), at 40 a second, spread over the
  // processes. The burst's fair-share service time is 8 / (1/5 * 40) s = 1 s; the bound of docs/tenants.md
  // adds one interval and one message per key: 2,050 ms. In virtual time every process sends on time
  // (measured: 1,051 ms at worst, 705 at the median); in real time a grant sent later than the grace is
  // rewound (storeGrantsRewound, 'late') and its message waits again: docs/tenants.md gives that measure.
  for (const { processes, keyLimit, steady, grace } of [
    { processes: 2, keyLimit: 40, steady: true, grace: 20 },
    { processes: 4, keyLimit: 1000, steady: true, grace: 0 },
    { processes: 2, keyLimit: 1000, steady: false, grace: 20 },
  ])
    it(`sends each light message within 2,050 ms: keys at ${keyLimit}, ${processes} processes, grace ${grace}, the noisy one ${steady ? 'steady' : 'backlogged'}`, async () => {
      const weights = new Map([
        ['noisy', 4],
        ['light', 1],
      ]);
      const fleet = weightedFleet(
        file.redis,
        file.fresh(`fair-burst-${processes}-${keyLimit}`),
        processes,
        { overall: { limit: 40, interval: 1000 }, key: { limit: keyLimit, interval: 1000 }, weights },
        {},
        { grantGraceMs: grace },
      );
      fleets.push(fleet);
      const seconds = 12;
      const arrivals: FleetArrival[] = [];
      let n = 0;
      if (steady)
        for (let t = 0, i = 0; t < seconds * 1000; t += 17, i++)
          arrivals.push({ at: t, throttler: i % processes, channel: 'noisy', n: n++ });
      else
        for (let i = 0; i < 40 * (seconds + 2); i++)
          arrivals.push({ at: 0, throttler: i % processes, channel: 'noisy', n: n++ });
      for (let t = 737, round = 0; t < seconds * 1000; t += 2000, round++)
        for (let b = 0; b < 8; b++) arrivals.push({ at: t, throttler: round % processes, channel: 'light', n: n++ });
      arrivals.sort((x, y) => x.at - y.at);
      await fleet.run(arrivals, seconds * 1000 + 3000, undefined, 50_000);
      const waits = fleet.deliveries
        .filter(({ channel }) => channel === 'light')
        .map(({ n: id, at }) => at - (fleet.sentAt.get(id) as number));
      expect(waits).toHaveLength(6 * 8);
      expect(Math.max(...waits)).toBeLessThanOrEqual(8 * (1000 / ((40 * 1) / 5)) + 1000 + (2 * 1000) / 40);
      expect(overfullWindows({ overall: [{ limit: 40, interval: 1000 }], channels: {} }, fleet.deliveries)).toEqual([]);
    }, 180_000);
});
