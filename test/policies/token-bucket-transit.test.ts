import { describe, expect, it } from 'vitest';
import { TokenBucketPolicy, type TransitSpread } from '../../src/policies/index.js';
import { limiterClock } from '../support/limiter-clock.js';

/** A spread the test moves by hand, as a measured one moves. */
function movingSpread(initial: number): TransitSpread & { value: number } {
  return {
    value: initial,
    most: Number.POSITIVE_INFINITY,
    spreadAt() {
      return this.value;
    },
  };
}

describe('TokenBucketPolicy with a transit spread J: capacity maxBurst - limit × J / interval', () => {
  it('stores 10 - 10 × 300 / 1000 = 7 permits at most: after idling, 7 stored + 1 pre-consumed go at once', () => {
    const limiter = limiterClock(
      new TokenBucketPolicy({ limit: 10, interval: 1_000 }, 0, undefined, movingSpread(300)),
    );
    limiter.sleep(5_000);
    expect(limiter.acquireMany(10)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 100, 100]);
  });

  it('keeps the steady rate: back to back, one permit every interval / limit whatever J', () => {
    const limiter = limiterClock(
      new TokenBucketPolicy({ limit: 10, interval: 1_000 }, 0, undefined, movingSpread(500)),
    );
    expect(limiter.acquireMany(5)).toEqual([0, 100, 100, 100, 100]);
  });

  it('follows a measured spread: a grown J drops the stored permits beyond the new capacity, a shrunk one refills from idle time only', () => {
    const spread = movingSpread(0);
    const limiter = limiterClock(new TokenBucketPolicy({ limit: 10, interval: 1_000 }, 0, undefined, spread));
    limiter.sleep(2_000);
    spread.value = 600;
    // 10 stored, capped at 4 as J grows: 4 stored + 1 pre-consumed.
    expect(limiter.acquireMany(6)).toEqual([0, 0, 0, 0, 0, 100]);
    spread.value = 0;
    limiter.sleep(2_000);
    expect(limiter.acquireMany(12)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100]);
  });
});
