import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FleetAuditReport } from '../../src/store/index.js';
import { overfullWindows, type RateConfig } from '../support/oracle.js';
import { redisForFile } from '../support/redis.js';
import { type FleetArrival, StoreFleet } from '../support/store-fleet.js';

/**
 * Per-channel ordering on the store, random keys, rates and arrivals over two or three throttlers
 * sharing one limiter, in virtual time against the real Redis (its clock the test's, so a round trip
 * takes no virtual time). Whatever the mix: every message is delivered once, no window of the overall
 * rate or of any key holds more than its limit (brute force, and the fleet's own audit), and, while the
 * overall rate does not bind, each key goes exactly as it would alone: its n-th delivery no later than
 * a strict window of its own would send it (`aloneSchedule`), whatever the other keys have waiting.
 */
const file = redisForFile();
const KEYS = ['a', 'b', '__proto__', 'noisy'] as const;

/** A key alone behind a strict window of `limit` per `interval`, cost 1: when each of its arrivals goes. */
function aloneSchedule(arrivals: readonly number[], limit: number, interval: number): number[] {
  const sent: number[] = [];
  for (const [index, at] of [...arrivals].sort((a, b) => a - b).entries()) {
    let t = Math.max(at, sent[index - 1] ?? 0);
    if (index >= limit) t = Math.max(t, (sent[index - limit] as number) + interval);
    sent.push(t);
  }
  return sent;
}

const scenario = fc
  .record({
    keyLimit: fc.integer({ min: 1, max: 3 }),
    interval: fc.constantFrom(100, 250, 400),
    throttlers: fc.integer({ min: 2, max: 3 }),
    // The overall rate: loose (the sum of the keys' limits: it never binds), or tighter (it binds).
    overallBinds: fc.boolean(),
    tighter: fc.integer({ min: 1, max: 4 }),
    backlog: fc.integer({ min: 0, max: 30 }),
    arrivals: fc.array(
      fc.record({
        at: fc.integer({ min: 0, max: 1500 }),
        key: fc.integer({ min: 0, max: KEYS.length - 1 }),
        throttler: fc.nat(),
      }),
      { minLength: 1, maxLength: 25 },
    ),
  })
  .map((s) => {
    const overallLimit = s.overallBinds ? s.tighter : s.keyLimit * KEYS.length;
    const arrivals: FleetArrival[] = [];
    // A noisy key's backlog at 0, spread over the throttlers, then the random arrivals.
    for (let n = 0; n < s.backlog; n++) arrivals.push({ at: 0, throttler: n % s.throttlers, channel: 'noisy', n });
    for (const a of s.arrivals) {
      const n = arrivals.length;
      arrivals.push({ at: a.at, throttler: a.throttler % s.throttlers, channel: KEYS[a.key], n });
    }
    arrivals.sort((x, y) => x.at - y.at || x.n - y.n);
    return { ...s, overallLimit, arrivals };
  });

describe('per-channel ordering on the store (real Redis, virtual time), against the brute force', () => {
  it('loses nothing, keeps every window, and no key waits behind another key', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const key = { limit: s.keyLimit, interval: s.interval };
        const overall = { limit: s.overallLimit, interval: s.interval };
        const fleet = new StoreFleet(
          file.redis,
          file.fresh('lines-prop'),
          s.throttlers,
          { rate: [overall], strategy: 'sliding-window', keys: { rate: [key] }, ordering: 'per-channel' },
          { grantGraceMs: 0 },
        );
        try {
          let audited = Number.NEGATIVE_INFINITY;
          let report: FleetAuditReport | undefined;
          const audit = async (force = false) => {
            if (!force && fleet.clock.now() - audited < s.interval / 2) return;
            audited = fleet.clock.now();
            report = await fleet.throttlers[0]?.store.audit();
          };
          const steps = await fleet.run(s.arrivals, Number.POSITIVE_INFINITY, () => audit(), 2000, s.interval / 2);
          expect(steps).toBeLessThan(2000);
          // Past every window, so that the audit has counted every grant.
          for (let step = 0; step < 5; step++) {
            fleet.clock.increment(s.interval / 2);
            await audit(true);
          }
          const deliveries = fleet.deliveries;
          // Nothing lost, nothing twice.
          expect(deliveries.map((d) => d.n).sort((a, b) => a - b)).toEqual(
            s.arrivals.map((a) => a.n).sort((a, b) => a - b),
          );
          const channels = Object.fromEntries(KEYS.map((name) => [name, [key]]));
          const config: RateConfig = { overall: [overall], channels };
          expect(overfullWindows(config, deliveries)).toEqual([]);
          expect(report?.windowsOver).toBe(0);
          expect(report?.gaps).toBe(0);
          expect(report?.deliveries).toBe(deliveries.length);
          if (!s.overallBinds) {
            for (const name of KEYS) {
              const arrived = s.arrivals.filter((a) => a.channel === name).map((a) => a.at);
              const alone = aloneSchedule(arrived, s.keyLimit, s.interval);
              const sent = deliveries
                .filter((d) => d.channel === name)
                .map((d) => d.at)
                .sort((a, b) => a - b);
              // A µs of rounding up per grant at most.
              for (const [index, at] of sent.entries()) expect(at).toBeLessThanOrEqual((alone[index] as number) + 1);
            }
          }
        } finally {
          await fleet.stop();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
