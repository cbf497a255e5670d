/**
 * The `transit` option against a server that counts each request as it ARRIVES, after an uplink u within
 * [umin, umin + J] chosen by fast-check per delivery: a brute-force oracle counts every server window at
 * each arrival (docs/guarantees.md, "What the server sees").
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import type { Arrival, RateConfig } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import { arrivalsArbitrary, driveToRest, type ObservedDelivery } from '../support/scenarios.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

interface Network {
  readonly umin: number;
  /** One uplink offset in [0, J] per delivery, in order (cycled if there are more deliveries). */
  readonly offsets: readonly number[];
}

interface ServerArrival {
  readonly at: number;
  readonly cost: number;
}

/** Each delivery's arrival at the server: sent at `at`, counted at `at + umin + offset`. */
function arrivalsAtServer(deliveries: readonly ObservedDelivery[], network: Network): ServerArrival[] {
  return deliveries
    .map((delivery, index) => ({
      at: delivery.at + network.umin + (network.offsets[index % network.offsets.length] as number),
      cost: delivery.cost,
    }))
    .sort((a, b) => a.at - b.at);
}

/** Brute force: at each arrival t, the cost of every arrival in (t - interval, t]; those over the limit. */
function overfullWindows(arrivals: readonly ServerArrival[], limit: number, interval: number): number[] {
  const over: number[] = [];
  for (const { at: t } of arrivals) {
    let cost = 0;
    for (const other of arrivals) if (other.at > t - interval && other.at <= t) cost += other.cost;
    if (cost > limit) over.push(t);
  }
  return over;
}

/**
 * Brute force: a strict server bucket (a request needs its whole cost in tokens, no debt), full at the start,
 * refilled at limit/interval, holding `capacity`; the arrivals it would refuse.
 */
function refusedByBucket(arrivals: readonly ServerArrival[], capacity: number, limit: number, interval: number) {
  let tokens = capacity;
  let last = arrivals[0]?.at ?? 0;
  const refused: number[] = [];
  for (const { at, cost } of arrivals) {
    tokens = Math.min(capacity, tokens + ((at - last) * limit) / interval);
    last = at;
    if (tokens < cost - 1e-9) refused.push(at);
    tokens -= cost;
  }
  return refused;
}

const scenario = fc
  .record({
    limit: fc.integer({ min: 1, max: 6 }),
    interval: fc.integer({ min: 20, max: 400 }),
    jitterShare: fc.double({ min: 0.02, max: 1, noNaN: true }),
    umin: fc.integer({ min: 0, max: 60 }),
  })
  .chain(({ limit, interval, jitterShare, umin }) => {
    const config: RateConfig = { overall: [{ limit, interval }], channels: {} };
    const jitter = Math.max(1, Math.round(jitterShare * interval));
    return fc.record({
      config: fc.constant(config),
      jitter: fc.constant(jitter),
      arrivals: arrivalsArbitrary(config, 30),
      network: fc.record({
        umin: fc.constant(umin),
        offsets: fc.array(fc.integer({ min: 0, max: jitter }), { minLength: 1, maxLength: 40 }),
      }),
    });
  });

function deliveriesOf(input: Parameters<typeof driveToRest>[0], config: RateConfig, arrivals: readonly Arrival[]) {
  const driven = driveToRest(input, config, arrivals);
  const deliveries = driven.deliveries();
  driven.actor.stop();
  return deliveries;
}

describe('sliding-window with transit J: no server window (t - W, t] at any arrival holds more than L', () => {
  it('holds for every uplink within [umin, umin + J]', () => {
    fc.assert(
      fc.property(scenario, ({ config, jitter, arrivals, network }) => {
        const rate = config.overall[0] as { limit: number; interval: number };
        const deliveries = deliveriesOf(
          { strategy: 'sliding-window', rate: { ...rate }, transit: jitter },
          config,
          arrivals,
        );
        expect(deliveries).toHaveLength(arrivals.length);
        expect(overfullWindows(arrivalsAtServer(deliveries, network), rate.limit, rate.interval)).toEqual([]);
      }),
      { numRuns: runs(150) },
    );
  });

  it('without transit, some jitter overfills a server window (why the option exists)', () => {
    const result = fc.check(
      fc.property(scenario, ({ config, arrivals, network }) => {
        const rate = config.overall[0] as { limit: number; interval: number };
        const deliveries = deliveriesOf({ strategy: 'sliding-window', rate: { ...rate } }, config, arrivals);
        return overfullWindows(arrivalsAtServer(deliveries, network), rate.limit, rate.interval).length === 0;
      }),
      // A fixed seed: the same search every run, never flaky; the first counterexample is enough (no shrinking).
      { numRuns: 2000, seed: 36, endOnFailure: true },
    );
    expect(result.failed, `no overfull window found in ${result.numRuns} runs`).toBe(true);
  });

  it('a saturated run uses at least W / (W + J) of the quota, less one cost, per window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 50, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 3 }),
        (limit, interval, jitter, unitCost) => {
          const cost = Math.min(unitCost, limit);
          const windows = 12;
          const span = windows * interval;
          const count = Math.ceil((span / interval + 2) * limit);
          const arrivals: Arrival[] = Array.from({ length: count }, (_, id) => ({
            id,
            at: 0,
            cost,
            channel: undefined,
          }));
          const config: RateConfig = { overall: [{ limit, interval }], channels: {} };
          const driven = driveToRest(
            { strategy: 'sliding-window', rate: { limit, interval }, transit: jitter },
            config,
            arrivals,
          );
          const used = driven
            .deliveries()
            .filter((delivery) => delivery.at < span)
            .reduce((sum, delivery) => sum + delivery.cost, 0);
          driven.actor.stop();
          expect(used / windows).toBeGreaterThanOrEqual((limit * interval) / (interval + jitter) - cost - 1e-9);
        },
      ),
      { numRuns: runs(60) },
    );
  });
});

describe("sliding-window with transit J and pace: the same guarantee at the server, each window's worth spread over it", () => {
  /** `pace`: true (the whole widened window) or a span in ms, shorter or longer than the interval. */
  const paced = scenario.chain((drawn) =>
    fc.record({
      drawn: fc.constant(drawn),
      pace: fc.oneof(fc.constant(true as const), fc.integer({ min: 1, max: 800 })),
    }),
  );

  it('no server window (t - W, t] at any arrival holds more than L, for every uplink within [umin, umin + J]', () => {
    fc.assert(
      fc.property(paced, ({ drawn: { config, jitter, arrivals, network }, pace }) => {
        const rate = config.overall[0] as { limit: number; interval: number };
        const deliveries = deliveriesOf(
          { strategy: 'sliding-window', rate: { ...rate }, transit: jitter, pace },
          config,
          arrivals,
        );
        expect(deliveries).toHaveLength(arrivals.length);
        expect(overfullWindows(arrivalsAtServer(deliveries, network), rate.limit, rate.interval)).toEqual([]);
      }),
      { numRuns: runs(150) },
    );
  });

  it('deliveries i..j-1 span at least their spacings (cost x min(span, W) / L) less two, and none waits longer than the spacing and the window ask', () => {
    fc.assert(
      fc.property(paced, ({ drawn: { config, jitter, arrivals }, pace }) => {
        const rate = config.overall[0] as { limit: number; interval: number };
        const deliveries = deliveriesOf(
          { strategy: 'sliding-window', rate: { ...rate }, transit: jitter, pace },
          config,
          arrivals,
        );
        const span = pace === true ? rate.interval : Math.min(pace, rate.interval);
        const spacing = (delivery: ObservedDelivery) => (delivery.cost * span) / rate.limit;
        const largest = Math.max(...arrivals.map((arrival) => arrival.cost));
        for (let i = 0; i < deliveries.length; i += 1) {
          let spacings = 0;
          for (let j = i + 1; j < deliveries.length; j += 1) {
            spacings += spacing(deliveries[j - 1] as ObservedDelivery);
            const gap = (deliveries[j] as ObservedDelivery).at - (deliveries[i] as ObservedDelivery).at;
            expect(gap).toBeGreaterThanOrEqual(spacings - (2 * largest * span) / rate.limit - 1e-6);
          }
        }
        const arrivedAt = new Map(arrivals.map((arrival) => [arrival.id, arrival.at]));
        for (let index = 1; index < deliveries.length; index += 1) {
          const previous = deliveries[index - 1] as ObservedDelivery;
          const delivery = deliveries[index] as ObservedDelivery;
          // Brute force over the widened window: the first time from the arrival, the previous delivery's
          // spacing and every expiry on at which the window has room (an upper bound on what pacing asks).
          const from = Math.max(arrivedAt.get(delivery.id) as number, previous.at + spacing(previous));
          const windowCost = (t: number) =>
            deliveries
              .slice(0, index)
              .filter((other) => other.at > t - rate.interval - jitter)
              .reduce((sum, other) => sum + other.cost, 0);
          const candidates = [from, ...deliveries.slice(0, index).map((other) => other.at + rate.interval + jitter)];
          const allowed = candidates.filter((t) => t >= from && windowCost(t) + delivery.cost <= rate.limit);
          // The timer wakes in whole ms ('ms' precision).
          expect(allowed.length).toBeGreaterThan(0);
          expect(delivery.at).toBeLessThanOrEqual(Math.min(...allowed) + 1 + 1e-6);
        }
      }),
      { numRuns: runs(100) },
    );
  });

  it('a saturated paced run still uses at least W / (W + J) of the quota, less one cost, per window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 50, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 3 }),
        (limit, interval, jitter, unitCost) => {
          const cost = Math.min(unitCost, limit);
          const windows = 12;
          const span = windows * interval;
          const count = Math.ceil((span / interval + 2) * limit);
          const arrivals: Arrival[] = Array.from({ length: count }, (_, id) => ({
            id,
            at: 0,
            cost,
            channel: undefined,
          }));
          const config: RateConfig = { overall: [{ limit, interval }], channels: {} };
          const driven = driveToRest(
            { strategy: 'sliding-window', rate: { limit, interval }, transit: jitter, pace: true },
            config,
            arrivals,
          );
          const used = driven
            .deliveries()
            .filter((delivery) => delivery.at < span)
            .reduce((sum, delivery) => sum + delivery.cost, 0);
          driven.actor.stop();
          expect(used / windows).toBeGreaterThanOrEqual((limit * interval) / (interval + jitter) - cost - 1e-9);
        },
      ),
      { numRuns: runs(60) },
    );
  });
});

describe("countUntil 'done' with the promise API, no transit: a server counting each request between its send and its answer is never over", () => {
  /** Each task: its cost, when it is handed over, its round trip, and where in it the server counts it (a share). */
  type Drawn = Array<{ cost: number; at: number; trip: number; share: number }>;
  const tasks = fc.array(
    fc.record({
      cost: fc.integer({ min: 1, max: 3 }),
      at: fc.integer({ min: 0, max: 600 }),
      trip: fc.integer({ min: 0, max: 500 }),
      share: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
    { minLength: 1, maxLength: 30 },
  );

  /** Runs the tasks through a throttler counting until `countUntil`; the arrivals at the server, in order. */
  async function arrivalsOf(limit: number, interval: number, drawn: Drawn, countUntil: 'start' | 'done') {
    useVirtualTime();
    const throttler = createThrottler({ rate: { limit, interval }, strategy: 'sliding-window', countUntil });
    const arrivals: ServerArrival[] = [];
    const started = performance.now();
    const done = drawn.map(async (task) => {
      await new Promise((resolve) => setTimeout(resolve, task.at));
      await throttler.schedule(
        async () => {
          // The server counts it somewhere between the send and the answer.
          arrivals.push({ at: performance.now() - started + task.share * task.trip, cost: task.cost });
          await new Promise((resolve) => setTimeout(resolve, task.trip));
        },
        { cost: task.cost },
      );
    });
    await vi.advanceTimersByTimeAsync(600 + drawn.length * (interval + 500) * 3);
    await Promise.all(done);
    await throttler.stop();
    restoreRealTime();
    return arrivals.sort((a, b) => a.at - b.at);
  }

  it('holds whatever each uplink within its own round trip, with no spread stated or measured', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 6 }),
        fc.integer({ min: 20, max: 400 }),
        tasks,
        async (limit, interval, drawn) => {
          const arrivals = await arrivalsOf(limit, interval, drawn, 'done');
          expect(arrivals).toHaveLength(drawn.length);
          expect(overfullWindows(arrivals, limit, interval)).toEqual([]);
        },
      ),
      { numRuns: runs(80) },
    );
  });

  it("counted from the send only (countUntil 'start'), some round trip overfills a server window", async () => {
    const result = await fc.check(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 6 }),
        fc.integer({ min: 20, max: 400 }),
        tasks,
        async (limit, interval, drawn) => {
          const arrivals = await arrivalsOf(limit, interval, drawn, 'start');
          return overfullWindows(arrivals, limit, interval).length === 0;
        },
      ),
      { numRuns: 500, seed: 36, endOnFailure: true },
    );
    expect(result.failed, `no overfull window found in ${result.numRuns} runs`).toBe(true);
  });
});

describe('token-bucket with transit J: the server bucket of the same capacity (plus the one request granted ahead) never refuses', () => {
  const bucketScenario = fc
    .record({
      limit: fc.integer({ min: 2, max: 8 }),
      interval: fc.integer({ min: 20, max: 400 }),
      extraBurst: fc.integer({ min: 0, max: 6 }),
      jitterShare: fc.double({ min: 0.01, max: 1, noNaN: true }),
      umin: fc.integer({ min: 0, max: 60 }),
    })
    .chain(({ limit, interval, extraBurst, jitterShare, umin }) => {
      const maxBurst = limit + extraBurst;
      // J may take the bucket down to one permit: (maxBurst - 1) x interval / limit.
      const jitter = Math.max(1, Math.floor((jitterShare * (maxBurst - 1) * interval) / limit));
      const config: RateConfig = { overall: [{ limit, interval }], channels: {} };
      return fc.record({
        config: fc.constant(config),
        maxBurst: fc.constant(maxBurst),
        jitter: fc.constant(jitter),
        arrivals: arrivalsArbitrary(config, 30),
        network: fc.record({
          umin: fc.constant(umin),
          offsets: fc.array(fc.integer({ min: 0, max: jitter }), { minLength: 1, maxLength: 40 }),
        }),
      });
    });

  /** The sender's guarantee, moved to arrivals: maxBurst + r x (d + 1 ms) + the largest cost over any span d. */
  const serverCapacity = (maxBurst: number, limit: number, interval: number, largestCost: number) =>
    maxBurst + limit / interval + largestCost;

  it('holds for every uplink within [umin, umin + J]', () => {
    fc.assert(
      fc.property(bucketScenario, ({ config, maxBurst, jitter, arrivals, network }) => {
        const rate = config.overall[0] as { limit: number; interval: number };
        const deliveries = deliveriesOf(
          { strategy: 'token-bucket', rate: { ...rate }, maxBurst, transit: jitter },
          config,
          arrivals,
        );
        const largest = Math.max(...arrivals.map((arrival) => arrival.cost));
        const capacity = serverCapacity(maxBurst, rate.limit, rate.interval, largest);
        expect(refusedByBucket(arrivalsAtServer(deliveries, network), capacity, rate.limit, rate.interval)).toEqual([]);
      }),
      { numRuns: runs(150) },
    );
  });

  it('without transit, some jitter makes that server bucket refuse', () => {
    const result = fc.check(
      fc.property(bucketScenario, ({ config, maxBurst, arrivals, network }) => {
        const rate = config.overall[0] as { limit: number; interval: number };
        const deliveries = deliveriesOf({ strategy: 'token-bucket', rate: { ...rate }, maxBurst }, config, arrivals);
        const largest = Math.max(...arrivals.map((arrival) => arrival.cost));
        const capacity = serverCapacity(maxBurst, rate.limit, rate.interval, largest);
        return refusedByBucket(arrivalsAtServer(deliveries, network), capacity, rate.limit, rate.interval).length === 0;
      }),
      // A fixed seed: the same search every run, never flaky; the first counterexample is enough (no shrinking).
      { numRuns: 2000, seed: 36, endOnFailure: true },
    );
    expect(result.failed, `no overfull window found in ${result.numRuns} runs`).toBe(true);
  });
});
