import { describe, expect, it } from 'vitest';
import { type ThrottlePolicy, TokenBucketPolicy } from '../../src/policies/index.js';
import type { Rate } from '../../src/rate/index.js';
import { limiterClock } from '../support/limiter-clock.js';

const perSecond = (limit: number): Rate => ({ limit, interval: 1_000 });

describe('TokenBucketPolicy (Guava SmoothBursty)', () => {
  it('spaces back-to-back acquires exactly interval/limit apart (5/s: 200 ms)', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(5), 0));
    expect(limiter.acquireMany(6)).toEqual([0, 200, 200, 200, 200, 200]);
    expect(limiter.now()).toBe(1_000);
  });

  it('starts empty: no burst at start-up (Guava testSimple: R0.00, R0.20, R0.20)', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(2), 0));
    expect(limiter.acquireMany(3)).toEqual([0, 500, 500]);
  });

  it('a pause that repays the last wait makes the next acquire free (Guava testSimpleWithWait)', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(5), 0));
    expect(limiter.acquire()).toBe(0);
    limiter.sleep(200);
    expect(limiter.acquireMany(2)).toEqual([0, 200]);
  });

  it('after idling 2 s at 2/s with the default maxBurst (2) lets three go at once: 2 stored + 1 pre-consumed', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(2), 0));
    limiter.sleep(2_000);
    expect(limiter.acquireMany(5)).toEqual([0, 0, 0, 500, 500]);
  });

  it('with maxBurst 3 lets four go at once after the same idle, and the next waits 500 ms', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(2), 0, 3));
    limiter.sleep(2_000);
    expect(limiter.acquireMany(5)).toEqual([0, 0, 0, 0, 500]);
  });

  it('replays Guava testOneSecondBurst: at 5/s after 2 s idle, 1 + 1 + 3 + 1 go at once, then 200 ms', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(5), 0));
    limiter.sleep(1_000);
    limiter.sleep(1_000);
    expect([limiter.acquire(1), limiter.acquire(1), limiter.acquire(3), limiter.acquire(1)]).toEqual([0, 0, 0, 0]);
    expect(limiter.acquire()).toBe(200);
  });

  it('grants a large request at once and makes the next one pay for it (pre-consumption)', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(5), 0));
    expect(limiter.acquire(5)).toBe(0);
    expect(limiter.acquire()).toBe(1_000);
    expect(limiter.acquire()).toBe(200);
  });

  it('never stores more than maxBurst, however long it idles', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(2), 0));
    limiter.sleep(3_600_000);
    expect(limiter.acquireMany(4)).toEqual([0, 0, 0, 500]);
  });

  it('stores unused time a permit at a time: idling half an interval stores one permit at 2/s', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(2), 0));
    limiter.sleep(500);
    // One stored, one pre-consumed, then the rate.
    expect(limiter.acquireMany(3)).toEqual([0, 0, 500]);
  });

  it('stores fractions of a permit: 250 ms idle at 2/s shortens the next wait by half', () => {
    const limiter = limiterClock(new TokenBucketPolicy(perSecond(2), 0));
    limiter.sleep(250);
    expect(limiter.acquireMany(3)).toEqual([0, 250, 500]);
  });

  it('asks for no wait while a permit is free, whatever the cost asked (the cost is paid by the next request)', () => {
    const policy: ThrottlePolicy = new TokenBucketPolicy(perSecond(2), 0);
    expect(policy.earliestDelivery(0, 2)).toBe(0);
    policy.recordDelivery(0, 2);
    expect(policy.earliestDelivery(0, 1)).toBe(1_000);
    expect(policy.earliestDelivery(1_200, 1)).toBe(1_200);
  });

  describe('setRates', () => {
    it('rescales stored permits to the new maximum, as Guava does', () => {
      const policy = new TokenBucketPolicy(perSecond(2), 0);
      const limiter = limiterClock(policy);
      limiter.sleep(2_000);
      // Full at 2 of 2; at 4/s the maximum is 4, so 4 stored: four free, one pre-consumed, then 250 ms.
      policy.setRates([perSecond(4)], limiter.now());
      expect(limiter.acquireMany(6)).toEqual([0, 0, 0, 0, 0, 250]);
      expect(policy.smallestLimit).toBe(4);
    });

    it('stores idle time at the old rate before changing it', () => {
      const policy = new TokenBucketPolicy(perSecond(4), 0);
      const limiter = limiterClock(policy);
      limiter.sleep(250);
      // 250 ms at 4/s stored 1 of 4; at 2/s that is half a permit of 2.
      policy.setRates([perSecond(2)], limiter.now());
      expect(limiter.acquireMany(3)).toEqual([0, 250, 500]);
    });

    it('keeps a wait still owed under the old rate', () => {
      const policy = new TokenBucketPolicy(perSecond(1), 0);
      const limiter = limiterClock(policy);
      expect(limiter.acquire(1)).toBe(0);
      policy.setRates([perSecond(10)], limiter.now());
      expect(limiter.acquireMany(3)).toEqual([1_000, 100, 100]);
    });

    it('with an explicit maxBurst keeps that many permits at any rate', () => {
      const policy = new TokenBucketPolicy(perSecond(2), 0, 3);
      const limiter = limiterClock(policy);
      limiter.sleep(10_000);
      policy.setRates([perSecond(10)], limiter.now());
      expect(limiter.acquireMany(5)).toEqual([0, 0, 0, 0, 100]);
    });
  });

  it('saves and loads stored permits and the next free time, shifted', () => {
    const original = new TokenBucketPolicy(perSecond(2), 0);
    const before = limiterClock(original);
    before.sleep(2_000);
    expect(before.acquire()).toBe(0);
    const saved = original.save(-2_000);
    expect(saved).toEqual({ kind: 'token-bucket', storedPermits: 1, maxPermits: 2, nextFree: 0 });
    const restored = new TokenBucketPolicy(perSecond(2), 10_000);
    restored.load(JSON.parse(JSON.stringify(saved)), 10_000);
    expect(limiterClock(restored, 10_000).acquireMany(3)).toEqual([0, 0, 500]);
  });

  it('ignores activation (no period of its own)', () => {
    const policy = new TokenBucketPolicy(perSecond(2), 0);
    policy.recordDelivery(0, 1);
    policy.activate();
    expect(policy.earliestDelivery(0)).toBe(500);
  });
});
