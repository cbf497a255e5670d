import { describe, expect, it } from 'vitest';
import { AllOfPolicies, type ThrottlePolicy, TokenBucketPolicy, VoucherTimerPolicy } from '../../src/policies/index.js';
import type { Rate } from '../../src/rate/index.js';

const perSecond = (limit: number): Rate => ({ limit, interval: 1_000 });
const perMinute = (limit: number): Rate => ({ limit, interval: 60_000 });

const timerPart = (rate: Rate): ThrottlePolicy => new VoucherTimerPolicy(rate);
const bucketPart = (rate: Rate, now: number): ThrottlePolicy => new TokenBucketPolicy(rate, now);

function activeTimers(rates: Rate[], activatedAt: number): AllOfPolicies {
  const policy = new AllOfPolicies(rates, timerPart, activatedAt);
  policy.activate(activatedAt);
  return policy;
}

function deliverAt(policy: ThrottlePolicy, times: number[], cost = 1): void {
  for (const at of times) {
    expect(policy.earliestDelivery(at, cost)).toBe(at);
    policy.recordDelivery(at, cost);
  }
}

describe('AllOfPolicies', () => {
  it('answers the latest of its parts: every rate must allow the delivery', () => {
    const policy = activeTimers([perSecond(2), { limit: 3, interval: 5_000 }], 0);
    deliverAt(policy, [0, 0]);
    // 2/1s is spent until 1000; 3/5s still has one voucher.
    expect(policy.earliestDelivery(0, 1)).toBe(1_000);
    deliverAt(policy, [1_000]);
    // 2/1s has a fresh set at 1000, but 3/5s is spent until 5000.
    expect(policy.earliestDelivery(1_000, 1)).toBe(5_000);
  });

  it('records each delivery in every part', () => {
    const policy = activeTimers([perSecond(3), perMinute(3)], 0);
    deliverAt(policy, [0], 2);
    // Both parts have one voucher left, so cost 2 waits for the longer period.
    expect(policy.earliestDelivery(10, 1)).toBe(10);
    expect(policy.earliestDelivery(10, 2)).toBe(60_000);
  });

  it('never answers earlier than now', () => {
    const policy = activeTimers([perSecond(2), perMinute(100)], 0);
    expect(policy.earliestDelivery(42_000, 1)).toBe(42_000);
  });

  it('exposes the smallest limit of its rates', () => {
    expect(new AllOfPolicies([perSecond(10), perMinute(500)], timerPart, 0).smallestLimit).toBe(10);
    expect(new AllOfPolicies([perSecond(10), perMinute(4)], timerPart, 0).smallestLimit).toBe(4);
  });

  it('on activation, each part keeps the period of its latest delivery while it runs', () => {
    const policy = activeTimers([perSecond(2), { limit: 5, interval: 5_000 }], 0);
    deliverAt(policy, [100]);
    // At 2000 the 2/1s part starts a new period; the 5/5s part's period runs until 5000.
    policy.activate(2_000);
    deliverAt(policy, [2_000, 2_000]);
    expect(policy.earliestDelivery(2_000, 1)).toBe(3_000);
    deliverAt(policy, [3_000, 3_000]);
    expect(policy.earliestDelivery(3_000, 1)).toBe(5_000);
  });

  it('passes activation to every part (each voucher timer starts its period there)', () => {
    const policy = activeTimers([perSecond(1), { limit: 1, interval: 3_000 }], 700);
    deliverAt(policy, [700]);
    expect(policy.earliestDelivery(700, 1)).toBe(3_700);
  });

  describe('setRates', () => {
    it('with the same number of rates, each part keeps its state under its new rate', () => {
      const policy = new AllOfPolicies([perSecond(1), perMinute(100)], bucketPart, 0);
      deliverAt(policy, [0]);
      expect(policy.earliestDelivery(0, 1)).toBe(1_000);
      policy.setRates([perSecond(2), perMinute(100)], 0);
      // The 1 s the first bucket is owed from the pre-consumed permit is still owed.
      expect(policy.earliestDelivery(0, 1)).toBe(1_000);
      expect(policy.smallestLimit).toBe(2);
    });

    it('with a different number of rates, starts fresh parts, activated now, with what the running period delivered spent', () => {
      const policy = activeTimers([perSecond(1), perMinute(100)], 0);
      deliverAt(policy, [0]);
      expect(policy.earliestDelivery(0, 1)).toBe(1_000);
      policy.setRates([perSecond(2), perMinute(100), { limit: 1_000, interval: 3_600_000 }], 200);
      // The new 2/1s part's period started at 200; the delivery at 0 counts in it, as a same-length change counts it.
      deliverAt(policy, [200]);
      expect(policy.earliestDelivery(200, 1)).toBe(1_200);
      expect(policy.smallestLimit).toBe(2);
    });

    it('with fewer rates, only the remaining rates apply', () => {
      const policy = activeTimers([perSecond(5), { limit: 1, interval: 10_000 }], 0);
      deliverAt(policy, [0]);
      expect(policy.earliestDelivery(0, 1)).toBe(10_000);
      policy.setRates([perSecond(5)], 500);
      deliverAt(policy, [500, 500, 500, 500]);
      expect(policy.earliestDelivery(500, 1)).toBe(1_500);
      expect(policy.smallestLimit).toBe(5);
    });

    it('a voucher timer whose rates alternate between one and two opens no burst (the period cut short counts)', () => {
      const policy = activeTimers([perSecond(2)], 0);
      const sent: number[] = [];
      for (let at = 0, round = 0; sent.length < 6; round++) {
        at = policy.earliestDelivery(at, 1);
        policy.recordDelivery(at, 1);
        sent.push(at);
        policy.setRates(round % 2 === 0 ? [perSecond(2), perMinute(100)] : [perSecond(2)], at);
      }
      expect(sent).toEqual([0, 0, 1_000, 1_000, 2_000, 2_000]);
    });

    it('a period that delivered nothing, or has ended, holds nothing back from the fresh parts', () => {
      const policy = activeTimers([perSecond(2)], 0);
      deliverAt(policy, [0, 0]);
      policy.setRates([perSecond(2), perMinute(100)], 1_000);
      deliverAt(policy, [1_000, 1_000]);
      expect(policy.earliestDelivery(1_000, 1)).toBe(2_000);
    });

    it('with a different number of token buckets, forgets the wait still owed (fresh buckets start now)', () => {
      // Contrast with the same-length change above, where the owed second is kept.
      const policy = new AllOfPolicies([perSecond(1), perMinute(100)], bucketPart, 0);
      deliverAt(policy, [0]);
      policy.setRates([perSecond(1)], 0);
      expect(policy.earliestDelivery(0, 1)).toBe(0);
    });
  });

  it('saves every part and loads them back, shifted', () => {
    const original = activeTimers([perSecond(2), perMinute(3)], 0);
    deliverAt(original, [0, 0]);
    const saved = original.save(0);
    expect(saved).toEqual({
      kind: 'all-of',
      parts: [
        { kind: 'timer', periodStart: 0, vouchers: 0, latestDeliveryPeriodEnd: 1_000 },
        { kind: 'timer', periodStart: 0, vouchers: 1, latestDeliveryPeriodEnd: 60_000 },
      ],
    });
    const restored = new AllOfPolicies([perSecond(2), perMinute(3)], timerPart, 0);
    restored.load(JSON.parse(JSON.stringify(saved)), 100_000);
    expect(restored.earliestDelivery(100_000, 1)).toBe(101_000);
    deliverAt(restored, [101_000]);
    expect(restored.earliestDelivery(101_000, 1)).toBe(160_000);
  });
});
