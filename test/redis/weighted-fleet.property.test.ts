import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { overfullWindows } from '../support/oracle.js';
import { redisForFile } from '../support/redis.js';
import { type FleetArrival, type StoreFleet, weightedFleet } from '../support/store-fleet.js';

/**
 * Weighted fairness across a fleet (src/redis/lua/fair-tags.ts): the finish tags live in Redis, so
 * the shares are the fleet's whichever process each key's messages reach. Random fleets in virtual
 * time on the real Redis: 2 to 4 processes, 2 to 5 keys of weights 1 to 4 and costs 1 or 2, each key's
 * messages all reaching one process (sharded) or spread over them all, every key backlogged from the
 * start. Against the brute-force weighted-fair-queueing share of a window in which every key is
 * backlogged (`room * w / Σw`), counted per whole window of the overall interval on the sends: each
 * key within 1 + twice the largest cost (finish tags are self-clocked: one message ahead of the fluid
 * share, one behind), no window over, nothing sent twice.
 */
const file = redisForFile();
const fleets: StoreFleet[] = [];
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.stop();
});

const INTERVAL = 1000;
const SECONDS = 6;

describe('weighted fairness across the fleet', () => {
  it('gives every backlogged key w / Σw of each window within 1 + twice the largest cost, sharded or spread', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.record({ weight: fc.integer({ min: 1, max: 4 }), cost: fc.integer({ min: 1, max: 2 }) }), {
          minLength: 2,
          maxLength: 5,
        }),
        fc.integer({ min: 20, max: 60 }),
        fc.boolean(),
        // The keys' own rate, never binding: from just above the largest share (with the slack below) to
        // above the overall rate, or far above it.
        fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(Number.POSITIVE_INFINITY)),
        async (processes, keys, limit, spread, keyRoom) => {
          const names = keys.map((_, index) => (index === 0 ? '__proto__' : `tenant-${index}`));
          const weightOf = new Map(names.map((name, index) => [name, (keys[index] as { weight: number }).weight]));
          const largest = Math.max(...keys.map(({ cost }) => cost));
          const totalWeight = keys.reduce((sum, { weight }) => sum + weight, 0);
          const heaviest = Math.max(...keys.map(({ weight }) => weight));
          // A share is at most `limit * heaviest / totalWeight` (plus the slack); the key rate goes from there to limit + 5.
          const lowest = Math.min(limit, Math.ceil((limit * heaviest) / totalWeight) + 1 + 2 * largest);
          const keyLimit = Number.isFinite(keyRoom) ? lowest + Math.round(keyRoom * (limit + 5 - lowest)) : 1000;
          const fleet = weightedFleet(file.redis, file.fresh(`fair-fleet-${run++}`), processes, {
            overall: { limit, interval: INTERVAL },
            key: { limit: keyLimit, interval: INTERVAL },
            weights: weightOf,
          });
          fleets.push(fleet);
          // More than the whole run can send, for every key: all stay backlogged throughout.
          const arrivals: FleetArrival[] = [];
          let n = 0;
          for (let i = 0; i < limit * SECONDS; i++)
            for (const [index, channel] of names.entries())
              arrivals.push({
                at: 0,
                throttler: spread ? i % processes : index % processes,
                channel,
                n: n++,
                cost: (keys[index] as { cost: number }).cost,
              });
          await fleet.run(arrivals, SECONDS * INTERVAL, undefined, 100_000);
          const off: string[] = [];
          // From the second window on: the first is granted as the requests come, before any waits.
          for (let s = 1; s < SECONDS; s++) {
            const inWindow = fleet.deliveries.filter(({ at }) => at >= s * INTERVAL && at < (s + 1) * INTERVAL);
            const room = inWindow.reduce((sum, { cost }) => sum + cost, 0);
            for (const [index, name] of names.entries()) {
              const got = inWindow.filter(({ channel }) => channel === name).reduce((sum, { cost }) => sum + cost, 0);
              const fair = (room * (keys[index] as { weight: number }).weight) / totalWeight;
              if (Math.abs(got - fair) > 1 + 2 * largest)
                off.push(`keys at ${keyLimit}, window ${s} ${name}: ${got} of ${fair.toFixed(1)}`);
            }
          }
          expect(off).toEqual([]);
          const config = { overall: [{ limit, interval: INTERVAL }], channels: {} };
          expect(overfullWindows(config, fleet.deliveries)).toEqual([]);
          for (const name of names) {
            const own = { overall: [{ limit: keyLimit, interval: INTERVAL }], channels: {} };
            expect(
              overfullWindows(
                own,
                fleet.deliveries.filter(({ channel }) => channel === name),
              ),
            ).toEqual([]);
          }
          const ns = fleet.deliveries.map((delivery) => delivery.n);
          expect(new Set(ns).size).toBe(ns.length);
          await fleet.stop();
          fleets.splice(fleets.indexOf(fleet), 1);
        },
      ),
      { numRuns: 12 },
    );
  }, 240_000);
});
