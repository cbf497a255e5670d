import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPolicy } from '../../src/policies/index.js';
import { type Arrival, type Delivery, expectedSchedule, overfullWindows, type RateConfig } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import { seededRandom } from '../support/random.js';
import { deleteLimiters, grantTimeOf, redisForFile } from '../support/redis.js';
import { driveArrivals, storeConfig, virtualLimiter } from '../support/redis-driver.js';
import { arrivalsArbitrary, rateConfigArbitrary, sendAsArbitrary } from '../support/scenarios.js';

/**
 * The existing properties, driven through the real Lua in the real Redis, in virtual time (the
 * store's testClock replaces Redis TIME): the grants' times are checked by brute force against the
 * oracle, as the local strategies are.
 */
const file = redisForFile();

const NUM_RUNS = 60;

/** How far ahead a grant may be reserved: none at all, some, or beyond any wait in these scenarios. */
const aheadArbitrary = fc.constantFrom(0, 1, 250, 1_000_000);

const scenario = fc
  .tuple(rateConfigArbitrary, sendAsArbitrary, aheadArbitrary)
  .chain(([config, sendAs, ahead]) =>
    arrivalsArbitrary(config).map((arrivals) => ({ config, sendAs, ahead, arrivals })),
  );

async function runSlidingWindow(
  config: RateConfig,
  arrivals: readonly Arrival[],
  /** 'unheard' (the machine's quiet paths) means nothing to a store: sent as events. */
  sendAs: 'events' | 'batches' | 'unheard',
  ahead: number,
) {
  const name = file.fresh('sw-prop');
  const virtual = virtualLimiter(file.redis, name, storeConfig(config, 'sliding-window', { maxReserveAheadMs: ahead }));
  const grants = await driveArrivals(virtual, arrivals, sendAs);
  await virtual.store.close();
  await deleteLimiters(file.redis, [name]);
  return grants;
}

describe('shared sliding window (the Redis script in virtual time) against the brute-force oracle', () => {
  it('never holds more than the limit (by cost) in any window, for every rate, overall and per channel', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ config, sendAs, ahead, arrivals }) => {
        const grants = await runSlidingWindow(config, arrivals, sendAs, ahead);
        expect(grants.length).toBe(arrivals.length);
        expect(overfullWindows(config, grants)).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('is work-conserving and FIFO by arrival: every grant at the earliest time the oracle allows, in arrival order', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ config, sendAs, ahead, arrivals }) => {
        const grants = await runSlidingWindow(config, arrivals, sendAs, ahead);
        const expected = expectedSchedule(config, arrivals, 'fifo');
        expect(grants.map(({ id, at }) => [id, at])).toEqual(expected.map(({ id, at }) => [id, at]));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('grants nothing ahead of the reserve-ahead bound', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ config, sendAs, ahead, arrivals }) => {
        const grants = await runSlidingWindow(config, arrivals, sendAs, ahead);
        for (const grant of grants) expect(grant.at - grant.askedAt).toBeLessThanOrEqual(ahead);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe('shared sliding window with releases', () => {
  it('stays safe when unused reservations are given back (cancelled messages) at random', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, fc.integer(), async ({ config, ahead, arrivals }, seed) => {
        const name = file.fresh('sw-release');
        const virtual = virtualLimiter(
          file.redis,
          name,
          storeConfig(config, 'sliding-window', { maxReserveAheadMs: ahead }),
        );
        const random = seededRandom(seed);
        const kept: Delivery[] = [];
        let cancelled = 0;
        // Every arrival reserved at its time, a third of the still-future grants released right after.
        for (const arrival of arrivals) {
          let at = Math.max(arrival.at, virtual.now());
          for (;;) {
            virtual.setTime(at);
            const [outcome] = await virtual.limiter.reserve([{ cost: arrival.cost, channel: arrival.channel }]);
            if (outcome?.kind === 'later') {
              at += outcome.retryAfterMs;
              continue;
            }
            if (outcome?.kind !== 'granted') throw new Error(JSON.stringify(outcome));
            const grantAt = grantTimeOf(outcome.reservation);
            if (grantAt > at && random() < 0.35) {
              await virtual.limiter.release([outcome.reservation]);
              cancelled += 1;
            } else {
              kept.push({ at: grantAt, cost: arrival.cost, channel: arrival.channel });
            }
            break;
          }
        }
        await virtual.store.close();
        await deleteLimiters(file.redis, [name]);
        expect(kept.length + cancelled).toBe(arrivals.length);
        expect(overfullWindows(config, kept)).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe('shared token bucket (the Redis script in virtual time) against the local Guava arithmetic', () => {
  const bucketScenario = fc
    .tuple(rateConfigArbitrary, sendAsArbitrary, fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }))
    .chain(([config, sendAs, maxBurst]) =>
      arrivalsArbitrary(config).map((arrivals) => ({ config, sendAs, maxBurst, arrivals })),
    );

  it('grants each request when the local TokenBucketPolicy (one per rate, overall and channel) would, in arrival order', async () => {
    await fc.assert(
      fc.asyncProperty(bucketScenario, async ({ config, sendAs, maxBurst, arrivals }) => {
        const name = file.fresh('tb-prop');
        const start = (arrivals[0] as Arrival).at;
        const virtual = virtualLimiter(
          file.redis,
          name,
          storeConfig(config, 'token-bucket', { maxBurst, maxReserveAheadMs: 1e9 }),
          start,
        );
        const grants = await driveArrivals(virtual, arrivals, sendAs);
        await virtual.store.close();
        await deleteLimiters(file.redis, [name]);

        // The local policies, created when the shared state was (at the first request), fed the same requests.
        const overall = createPolicy('token-bucket', config.overall, { maxBurst }, start);
        const channels = new Map(
          Object.entries(config.channels).map(([channel, rates]) => [
            channel,
            createPolicy('token-bucket', rates, { maxBurst }, start),
          ]),
        );
        let last = Number.NEGATIVE_INFINITY;
        const expected: Delivery[] = [];
        for (const grant of grants) {
          const parts = [overall, ...(grant.channel === undefined ? [] : [channels.get(grant.channel)!])];
          let at = Math.max(grant.askedAt, last);
          for (const part of parts) at = Math.max(at, part.earliestDelivery(at, grant.cost));
          for (const part of parts) part.recordDelivery(at, grant.cost);
          last = at;
          expected.push({ at, cost: grant.cost, channel: grant.channel });
        }
        expect(grants.map((grant) => grant.id)).toEqual(arrivals.map((arrival) => arrival.id));
        // Redis keeps microseconds and rounds waits up to the next one.
        for (const [index, grant] of grants.entries()) {
          expect(grant.at).toBeGreaterThanOrEqual((expected[index] as Delivery).at - 1e-9);
          expect(grant.at - (expected[index] as Delivery).at).toBeLessThan(0.002);
        }
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
