import { describe, expect, it } from 'vitest';
import { type ThrottlePolicy, WarmingUpPolicy } from '../../src/policies/index.js';
import type { Rate } from '../../src/rate/index.js';
import { limiterClock } from '../support/limiter-clock.js';

const perSecond = (limit: number): Rate => ({ limit, interval: 1_000 });

function expectWaits(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  for (const [index, wait] of expected.entries()) expect(actual[index]).toBeCloseTo(wait, 6);
}

/**
 * Guava's tests print waits in seconds with two decimals (`R1.38`); a wait
 * matches when it rounds to the same hundredth of a second.
 */
function expectGuavaEvents(actual: number[], seconds: number[]): void {
  expect(actual).toHaveLength(seconds.length);
  for (const [index, wait] of actual.entries()) {
    expect(Math.abs(wait - (seconds[index] as number) * 1_000)).toBeLessThanOrEqual(5);
  }
}

/** The cold sequence at 2/s with a 3 s warm-up and coldFactor 3: 1500 ms cold, 500 ms warm. */
const COLD_START_WAITS = [0, 4_000 / 3, 1_000, 2_000 / 3, 500, 500, 500];

describe('WarmingUpPolicy (Guava SmoothWarmingUp)', () => {
  it('a cold limiter at 2/s (3 s warm-up, coldFactor 3) waits 0, ~1333, 1000, ~667, then 500 ms', () => {
    const limiter = limiterClock(new WarmingUpPolicy(perSecond(2), 0, 3_000, 3));
    expectWaits(limiter.acquireMany(7), COLD_START_WAITS);
  });

  it('stays at the full rate once warm', () => {
    const limiter = limiterClock(new WarmingUpPolicy(perSecond(2), 0, 3_000, 3));
    limiter.acquireMany(5);
    expectWaits(limiter.acquireMany(20), Array(20).fill(500));
  });

  it('is cold again after idling a whole warm-up period, and only partly cold after a shorter idle', () => {
    const limiter = limiterClock(new WarmingUpPolicy(perSecond(2), 0, 3_000, 3));
    limiter.acquireMany(7);
    // 500 ms repays the last grant; 3000 more refill the store to the top.
    limiter.sleep(500 + 3_000);
    expectWaits(limiter.acquireMany(7), COLD_START_WAITS);
    // 2000 ms idle stores 4 of 6 permits: one above the threshold of 3.
    limiter.sleep(500 + 2_000);
    expectWaits(limiter.acquireMany(3), [0, 2_000 / 3, 500]);
    // 1 permit is left; 1000 ms idle adds 2: 3 is the threshold, so no warm-up at all.
    limiter.sleep(500 + 1_000);
    expectWaits(limiter.acquireMany(3), [0, 500, 500]);
  });

  it('with coldFactor 1 is flat: 500 ms between grants from the first', () => {
    const limiter = limiterClock(new WarmingUpPolicy(perSecond(2), 0, 3_000, 1));
    expectWaits(limiter.acquireMany(6), [0, 500, 500, 500, 500, 500]);
  });

  it('is never faster than the full rate, whatever the pauses between requests', () => {
    // A seeded sequence of pauses, from none to longer than the warm-up.
    let seed = 12_345;
    const nextPause = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      const pick = seed % 4;
      return pick === 0 ? 0 : pick === 1 ? seed % 300 : pick === 2 ? seed % 1_500 : seed % 5_000;
    };
    const policy: ThrottlePolicy = new WarmingUpPolicy(perSecond(2), 0, 3_000, 3);
    let clock = 0;
    const grants: number[] = [];
    for (let n = 0; n < 500; n++) {
      clock += nextPause();
      const grantedAt = policy.earliestDelivery(clock, 1);
      policy.recordDelivery(grantedAt, 1);
      grants.push(grantedAt);
      clock = grantedAt;
    }
    const gaps = grants.slice(1).map((at, index) => at - (grants[index] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(500 - 1e-9);
    // The pauses did let it cool down: some gaps are slower than the full rate.
    expect(gaps.some((gap) => gap > 1_000)).toBe(true);
  });

  it('a request of several permits is granted at once and the next waits for all of them', () => {
    const limiter = limiterClock(new WarmingUpPolicy(perSecond(2), 0, 3_000, 3));
    // Three cold permits cost 4000/3 + 1000 + 2000/3 = 3000 ms.
    expect(limiter.acquire(3)).toBe(0);
    expect(limiter.acquire()).toBeCloseTo(3_000, 6);
    expect(limiter.acquire()).toBeCloseTo(500, 6);
  });

  it('a rate change keeps how cold it is (stored permits rescale to the new maximum)', () => {
    const policy = new WarmingUpPolicy(perSecond(2), 0, 3_000, 3);
    const limiter = limiterClock(policy);
    policy.setRates([perSecond(4)], 0);
    // At 4/s: threshold 6, maximum 12, all 12 stored; cold interval 750 ms falling to 250 ms.
    const waits = limiter.acquireMany(14);
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeCloseTo(708.333_333, 5);
    expect(waits[13]).toBeCloseTo(250, 6);
    expect(policy.smallestLimit).toBe(4);
  });

  describe("Guava's RateLimiterTest expectations", () => {
    // Warm up from cold, sleep long enough to be cold again and warm up the same way,
    // then sleep too little to cool down and stay at the stable rate.
    const coldAgainThenStillWarm = [
      {
        name: 'testWarmUp: 2/s, 4 s warm-up, coldFactor 3',
        limit: 2,
        coldFactor: 3,
        fromCold: [0, 1.38, 1.13, 0.88, 0.63, 0.5, 0.5, 0.5],
        repay: 500,
        notLongEnoughToCool: 2_000, // cooling down would take another 2 s
        stillWarm: [0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
      },
      {
        name: 'testWarmUpWithColdFactor: 5/s, 4 s warm-up, coldFactor 10',
        limit: 5,
        coldFactor: 10,
        fromCold: [0, 1.75, 1.26, 0.76, 0.3, 0.2, 0.2, 0.2],
        repay: 200,
        notLongEnoughToCool: 1_000, // cooling down would take another 3 s
        stillWarm: [0, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2],
      },
    ];
    for (const { name, limit, coldFactor, fromCold, repay, notLongEnoughToCool, stillWarm } of coldAgainThenStillWarm) {
      it(name, () => {
        const limiter = limiterClock(new WarmingUpPolicy(perSecond(limit), 0, 4_000, coldFactor));
        expectGuavaEvents(limiter.acquireMany(8), fromCold);
        limiter.sleep(repay); // repays the last acquire
        limiter.sleep(4_000); // becomes cold again
        expectGuavaEvents(limiter.acquireMany(8), fromCold);
        limiter.sleep(repay);
        limiter.sleep(notLongEnoughToCool); // not cold
        expectGuavaEvents(limiter.acquireMany(8), stillWarm);
      });
    }

    it('testWarmUpWithColdFactor1: 5/s, 4 s warm-up, coldFactor 1', () => {
      const limiter = limiterClock(new WarmingUpPolicy(perSecond(5), 0, 4_000, 1));
      expectGuavaEvents(limiter.acquireMany(8), [0, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]);
      limiter.sleep(340);
      expectGuavaEvents(limiter.acquireMany(8), [0, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]);
    });
  });

  it('saves and loads its stored permits and next free time, shifted', () => {
    const original = new WarmingUpPolicy(perSecond(2), 1_000, 3_000, 3);
    original.recordDelivery(1_000, 1);
    const saved = original.save(-1_000);
    expect(saved.kind).toBe('warming-up');
    expect(saved.storedPermits).toBe(5);
    expect(saved.maxPermits).toBe(6);
    expect(saved.nextFree).toBeCloseTo(4_000 / 3, 6);
    const restored: ThrottlePolicy = new WarmingUpPolicy(perSecond(2), 0, 3_000, 3);
    restored.load(JSON.parse(JSON.stringify(saved)), 10_000);
    expect(restored.earliestDelivery(10_000, 1)).toBeCloseTo(10_000 + 4_000 / 3, 6);
  });
});
