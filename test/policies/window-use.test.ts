import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AllOfPolicies,
  SlidingWindowPolicy,
  type ThrottlePolicy,
  TokenBucketPolicy,
  VoucherTimerPolicy,
} from '../../src/policies/index.js';
import type { Rate } from '../../src/rate/index.js';

/** `windowUse`: what each rate's window holds now, the question the otel gauge asks. */
function use(policy: ThrottlePolicy, now: number): number[] {
  const into: number[] = [];
  policy.windowUse(now, into);
  return into;
}

describe('windowUse', () => {
  it('a sliding window: the cost in (now - interval, now] of every rate, against a brute-force count', () => {
    const rates: Rate[] = [
      { limit: 5, interval: 100 },
      { limit: 12, interval: 1000 },
    ];
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 120 }), cost: fc.integer({ min: 1, max: 3 }) }), {
          maxLength: 80,
        }),
        fc.integer({ min: 0, max: 1500 }),
        (steps, lookAhead) => {
          const policy = new SlidingWindowPolicy(rates);
          const log: Array<[number, number]> = [];
          let now = 0;
          for (const { gap, cost } of steps) {
            now = Math.max(now + gap, policy.earliestDelivery(now + gap, cost));
            policy.recordDelivery(now, cost);
            log.push([now, cost]);
          }
          const at = now + lookAhead;
          const brute = rates.map((rate) =>
            log.filter(([time]) => time > at - rate.interval && time <= at).reduce((sum, [, cost]) => sum + cost, 0),
          );
          expect(use(policy, at)).toEqual(brute);
          // A question: asking changes no answer.
          expect(use(policy, at)).toEqual(brute);
        },
      ),
    );
  });

  it('a sliding window counts cost held in flight', () => {
    const policy = new SlidingWindowPolicy([{ limit: 4, interval: 1000 }]);
    policy.recordDelivery(0, 1);
    policy.holdInFlight?.(2);
    expect(use(policy, 500)).toEqual([3]);
    expect(use(policy, 1500)).toEqual([2]);
  });

  it('the voucher timer: what its running period spent; nothing once it ran out', () => {
    const policy = new AllOfPolicies(
      [
        { limit: 3, interval: 1000 },
        { limit: 10, interval: 5000 },
      ],
      (rate) => new VoucherTimerPolicy(rate),
      0,
    );
    expect(use(policy, 0)).toEqual([0, 0]);
    policy.activate(0);
    policy.recordDelivery(0, 1);
    policy.recordDelivery(10, 2);
    expect(use(policy, 500)).toEqual([3, 3]);
    expect(use(policy, 1000)).toEqual([0, 3]);
    expect(use(policy, 5000)).toEqual([0, 0]);
  });

  it('a token bucket: the burst not available, scaled to the limit, plus what was granted ahead', () => {
    const policy = new TokenBucketPolicy({ limit: 10, interval: 1000 }, 0);
    // Guava's bucket starts empty: nothing of the burst is there yet.
    expect(use(policy, 0)).toEqual([10]);
    // Filled after an interval of idle time.
    expect(use(policy, 1000)).toEqual([0]);
    policy.recordDelivery(1000, 4);
    expect(use(policy, 1000)[0]).toBeCloseTo(4);
    // Half an interval later, 5 permits came back (to the cap).
    expect(use(policy, 1500)[0]).toBeCloseTo(0);
    policy.recordDelivery(1500, 15);
    // 10 stored spent, 5 granted ahead: the window holds more than its limit until they are paid off.
    expect(use(policy, 1500)[0]).toBeCloseTo(15);
  });
});
