import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClearanceRequest } from '../../src/engine/index.js';
import { ReserveLines } from '../../src/store/reserve-lines.js';
import { fluidShares } from '../support/fair-oracle.js';
import { runs } from '../support/property-runs.js';

/**
 * Weighted fairness on the store, the process side (src/store/weighted-turn.ts): the lines of a
 * store clearance are asked for in finish-tag order, and the store grants a prefix of each call (the
 * overall limit binds), the rest coming back. Against the fluid ideal (test/support/fair-oracle.ts):
 * after every call, each backlogged key has received its `w / Σw` of all that was granted, within
 * 1 + twice the largest cost (finish tags, self-clocked: a key can lead the fluid ideal by one message
 * and lag it by another). No Redis: the store's answer is the random prefix.
 */
describe('weighted lines: what a call obtains is shared by weight', () => {
  it('keeps every backlogged key within 1 + twice the largest cost of its fluid share, call after call', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ weight: fc.integer({ min: 1, max: 8 }), cost: fc.integer({ min: 1, max: 3 }) }), {
          minLength: 2,
          maxLength: 5,
        }),
        fc.array(fc.record({ max: fc.integer({ min: 1, max: 200 }), granted: fc.nat({ max: 40 }) }), {
          minLength: 1,
          maxLength: 60,
        }),
        (keys, calls) => {
          const names = keys.map((_, index) => `k${index}`);
          const weightOf = new Map(names.map((name, index) => [name, (keys[index] as { weight: number }).weight]));
          const lines = new ReserveLines((channel) => weightOf.get(channel as string) ?? 1);
          let seq = 0;
          // Enough for every call: all keys stay backlogged throughout.
          for (let n = 0; n < 2500; n++)
            for (const [index, name] of names.entries())
              lines.push({
                seq: seq++,
                channel: name,
                cost: (keys[index] as { cost: number }).cost,
              } as ClearanceRequest);
          const received = new Map(names.map((name) => [name, 0]));
          let total = 0;
          const largest = Math.max(...keys.map(({ cost }) => cost));
          for (const { max, granted } of calls) {
            const batch = lines.takeBatch(max, 0);
            const kept = batch.slice(0, Math.min(granted, batch.length));
            for (const request of kept) {
              received.set(
                request.channel as string,
                (received.get(request.channel as string) as number) + (request.cost as number),
              );
              total += request.cost as number;
            }
            lines.putBack(batch.slice(kept.length));
            lines.callEnded();
            const ideal = fluidShares(
              names.map((key) => ({ key, weight: weightOf.get(key) as number, wants: Number.POSITIVE_INFINITY })),
              total,
            );
            for (const name of names)
              expect(Math.abs((received.get(name) as number) - (ideal.get(name) as number))).toBeLessThanOrEqual(
                1 + 2 * largest,
              );
          }
        },
      ),
      { numRuns: runs(60) },
    );
  });
});
