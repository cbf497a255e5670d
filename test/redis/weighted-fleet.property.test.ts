import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fluidShares, receivedIn } from '../support/fair-oracle.js';
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
 * share, one behind), no window over, nothing sent twice. The keys' own rate is drawn too (issue 33:
 * a key rate at the overall one, which never binds, shared 1:4 as 50/50): where it does not bind it
 * changes no share; below a key's share it caps the key there and the others share the rest by
 * weight (water-filling, test/support/fair-oracle.ts).
 */
const file = redisForFile();
const fleets: StoreFleet[] = [];
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.stop();
});

const INTERVAL = 1000;
const SECONDS = 6;

interface FleetKey {
  readonly weight: number;
  readonly cost: number;
}

const fleetShape = {
  processes: fc.integer({ min: 2, max: 4 }),
  keys: fc.array(fc.record({ weight: fc.integer({ min: 1, max: 4 }), cost: fc.integer({ min: 1, max: 2 }) }), {
    minLength: 2,
    maxLength: 5,
  }),
  limit: fc.integer({ min: 20, max: 60 }),
  spread: fc.boolean(),
};

/**
 * Runs a fleet of `processes` with these keys for SECONDS, every key backlogged throughout (more than the
 * whole run can send), and checks that no window went over, overall or of any key, and nothing was sent twice.
 */
async function runBacklogged(
  label: string,
  { processes, keys, limit, spread }: { processes: number; keys: readonly FleetKey[]; limit: number; spread: boolean },
  keyLimit: number,
): Promise<{ fleet: StoreFleet; names: string[] }> {
  const names = keys.map((_, index) => (index === 0 ? '__proto__' : `tenant-${index}`));
  const fleet = weightedFleet(file.redis, file.fresh(label), processes, {
    overall: { limit, interval: INTERVAL },
    key: { limit: keyLimit, interval: INTERVAL },
    weights: new Map(names.map((name, index) => [name, (keys[index] as FleetKey).weight])),
  });
  fleets.push(fleet);
  const arrivals: FleetArrival[] = [];
  let n = 0;
  for (let i = 0; i < limit * SECONDS; i++)
    for (const [index, channel] of names.entries())
      arrivals.push({
        at: 0,
        throttler: spread ? i % processes : index % processes,
        channel,
        n: n++,
        cost: (keys[index] as FleetKey).cost,
      });
  await fleet.run(arrivals, SECONDS * INTERVAL, undefined, 100_000);
  expect(overfullWindows({ overall: [{ limit, interval: INTERVAL }], channels: {} }, fleet.deliveries)).toEqual([]);
  const own = { overall: [{ limit: keyLimit, interval: INTERVAL }], channels: {} };
  for (const name of names)
    expect(
      overfullWindows(
        own,
        fleet.deliveries.filter(({ channel }) => channel === name),
      ),
    ).toEqual([]);
  const ns = fleet.deliveries.map((delivery) => delivery.n);
  expect(new Set(ns).size).toBe(ns.length);
  return { fleet, names };
}

/** Each key's part of each whole window from the second on (the first goes as the requests come), against `ideal`. */
function offShares(
  fleet: StoreFleet,
  names: readonly string[],
  keys: readonly FleetKey[],
  keyLimit: number,
  ideal: (room: number) => Map<string, number>,
): string[] {
  const largest = Math.max(...keys.map(({ cost }) => cost));
  const off: string[] = [];
  for (let s = 1; s < SECONDS; s++) {
    const got = receivedIn(fleet.deliveries, s * INTERVAL, (s + 1) * INTERVAL);
    const fair = ideal([...got.values()].reduce((sum, cost) => sum + cost, 0));
    for (const name of names) {
      const part = fair.get(name) as number;
      if (Math.abs((got.get(name) ?? 0) - part) > 1 + 2 * largest)
        off.push(`keys at ${keyLimit}, window ${s} ${name}: ${got.get(name) ?? 0} of ${part.toFixed(1)}`);
    }
  }
  return off;
}

describe('weighted fairness across the fleet', () => {
  it('gives every backlogged key w / Σw of each window within 1 + twice the largest cost, sharded or spread, whatever key rate does not bind', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record(fleetShape),
        // The keys' own rate, never binding: from just above the largest share (with the slack) to above
        // the overall rate, or far above it.
        fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(Number.POSITIVE_INFINITY)),
        async (shape, keyRoom) => {
          const { keys, limit } = shape;
          const largest = Math.max(...keys.map(({ cost }) => cost));
          const totalWeight = keys.reduce((sum, { weight }) => sum + weight, 0);
          const heaviest = Math.max(...keys.map(({ weight }) => weight));
          const lowest = Math.min(limit, Math.ceil((limit * heaviest) / totalWeight) + 1 + 2 * largest);
          const keyLimit = Number.isFinite(keyRoom) ? lowest + Math.round(keyRoom * (limit + 5 - lowest)) : 1000;
          const { fleet, names } = await runBacklogged(`fair-fleet-${run++}`, shape, keyLimit);
          const byWeight = (room: number) =>
            new Map(names.map((name, index) => [name, (room * (keys[index] as FleetKey).weight) / totalWeight]));
          expect(offShares(fleet, names, keys, keyLimit, byWeight)).toEqual([]);
          await fleet.stop();
          fleets.splice(fleets.indexOf(fleet), 1);
        },
      ),
      { numRuns: 12 },
    );
  }, 240_000);

  it('caps a key whose own rate is below its share at that rate, the others sharing the rest by weight (water-filling)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.record(fleetShape), fc.double({ min: 0.1, max: 1.1, noNaN: true }), async (shape, part) => {
        const { keys, limit } = shape;
        const keyLimit = Math.max(2, Math.round(limit * part));
        const { fleet, names } = await runBacklogged(`fair-cap-${run++}`, shape, keyLimit);
        // Each key wants what its own rate lets through in a window (whole messages of its cost).
        const waterFilled = (room: number) =>
          fluidShares(
            names.map((key, index) => {
              const { weight, cost } = keys[index] as FleetKey;
              return { key, weight, wants: keyLimit - (keyLimit % cost) };
            }),
            room,
          );
        expect(offShares(fleet, names, keys, keyLimit, waterFilled)).toEqual([]);
        await fleet.stop();
        fleets.splice(fleets.indexOf(fleet), 1);
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
