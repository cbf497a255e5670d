import { describe, expect, it } from 'vitest';
import { SlidingWindowPolicy } from '../../src/policies/index.js';
import type { Rate } from '../../src/rate/index.js';

const perSecond = (limit: number): Rate => ({ limit, interval: 1_000 });

/** Records a delivery at each time, as the machine does once `earliestDelivery` allowed it. */
function deliverAt(policy: SlidingWindowPolicy, times: number[], cost = 1): void {
  for (const at of times) {
    expect(policy.earliestDelivery(at, cost)).toBe(at);
    policy.recordDelivery(at, cost);
  }
}

describe('SlidingWindowPolicy', () => {
  it('lets the first N go at once and the next one T after the N-th last delivery', () => {
    const policy = new SlidingWindowPolicy([perSecond(3)]);
    deliverAt(policy, [0, 100, 200]);
    expect(policy.earliestDelivery(200, 1)).toBe(1_000);
    deliverAt(policy, [1_000]);
    // The third last is now the one at 100.
    expect(policy.earliestDelivery(1_000, 1)).toBe(1_100);
    deliverAt(policy, [1_100]);
    expect(policy.earliestDelivery(1_100, 1)).toBe(1_200);
  });

  it('is work-conserving: N deliveries at the same instant are allowed, with no fixed T/N spacing', () => {
    const policy = new SlidingWindowPolicy([perSecond(4)]);
    deliverAt(policy, [0, 0, 0, 0]);
    expect(policy.earliestDelivery(0, 1)).toBe(1_000);
  });

  it('answers now when the window has room, whatever the time', () => {
    const policy = new SlidingWindowPolicy([perSecond(2)]);
    expect(policy.earliestDelivery(12_345, 1)).toBe(12_345);
    deliverAt(policy, [12_345]);
    expect(policy.earliestDelivery(12_400, 1)).toBe(12_400);
  });

  it('treats the window [t, t + T) as half-open: exactly T after the N-th last delivery is allowed, a hair before is not', () => {
    const policy = new SlidingWindowPolicy([perSecond(2)]);
    deliverAt(policy, [0, 0]);
    expect(policy.earliestDelivery(999.999, 1)).toBe(1_000);
    expect(policy.earliestDelivery(1_000, 1)).toBe(1_000);
    deliverAt(policy, [1_000, 1_000]);
    expect(policy.earliestDelivery(1_000, 1)).toBe(2_000);
  });

  it('with costs, waits until enough cost has left the window for the new cost to fit', () => {
    const policy = new SlidingWindowPolicy([perSecond(5)]);
    deliverAt(policy, [0, 100], 2);
    // 4 of 5 used: cost 1 fits now; cost 2 or 3 must wait for the delivery at 0 to leave;
    // cost 4 or 5 must wait for both.
    expect(policy.earliestDelivery(200, 1)).toBe(200);
    expect(policy.earliestDelivery(200, 2)).toBe(1_000);
    expect(policy.earliestDelivery(200, 3)).toBe(1_000);
    expect(policy.earliestDelivery(200, 4)).toBe(1_100);
    expect(policy.earliestDelivery(200, 5)).toBe(1_100);
  });

  it('never allows a cost above the limit (the caller validates costs; the policy answers Infinity)', () => {
    const policy = new SlidingWindowPolicy([perSecond(5)]);
    expect(policy.earliestDelivery(0, 6)).toBe(Number.POSITIVE_INFINITY);
  });

  it('mixes costs: one delivery of cost 3 counts like three of cost 1', () => {
    const weighted = new SlidingWindowPolicy([perSecond(4)]);
    const unit = new SlidingWindowPolicy([perSecond(4)]);
    deliverAt(weighted, [0], 3);
    deliverAt(unit, [0, 0, 0]);
    for (const [at, cost] of [
      [10, 1],
      [10, 2],
      [500, 4],
    ] as const) {
      expect(weighted.earliestDelivery(at, cost)).toBe(unit.earliestDelivery(at, cost));
    }
    expect(weighted.earliestDelivery(10, 2)).toBe(1_000);
  });

  it('holds every rate at once: the answer is the latest of the rates', () => {
    const policy = new SlidingWindowPolicy([perSecond(2), { limit: 3, interval: 10_000 }]);
    deliverAt(policy, [0, 0]);
    expect(policy.earliestDelivery(0, 1)).toBe(1_000);
    deliverAt(policy, [1_000]);
    // 2/1s allows at 1000, but 3/10s has had 3 since 0.
    expect(policy.earliestDelivery(1_000, 1)).toBe(10_000);
    expect(policy.smallestLimit).toBe(2);
  });

  it('keeps the history of the longest window, not only the shortest', () => {
    const policy = new SlidingWindowPolicy([perSecond(5), { limit: 6, interval: 60_000 }]);
    deliverAt(policy, [0, 0, 0, 0, 0]);
    deliverAt(policy, [5_000]);
    expect(policy.earliestDelivery(30_000, 1)).toBe(60_000);
  });

  describe('setRates', () => {
    it('keeps the history: lowering the limit never opens a burst', () => {
      const policy = new SlidingWindowPolicy([perSecond(5)]);
      deliverAt(policy, [0, 100, 200]);
      policy.setRates([perSecond(2)]);
      // The second last delivery (100) + T.
      expect(policy.earliestDelivery(300, 1)).toBe(1_100);
      expect(policy.smallestLimit).toBe(2);
    });

    it('raising the limit lets the extra go at once', () => {
      const policy = new SlidingWindowPolicy([perSecond(2)]);
      deliverAt(policy, [0, 0]);
      expect(policy.earliestDelivery(0, 1)).toBe(1_000);
      policy.setRates([perSecond(4)]);
      deliverAt(policy, [0, 0]);
      expect(policy.earliestDelivery(0, 1)).toBe(1_000);
    });

    it('a longer interval applies to deliveries already made', () => {
      const policy = new SlidingWindowPolicy([perSecond(2)]);
      deliverAt(policy, [0, 0]);
      policy.setRates([{ limit: 2, interval: 5_000 }]);
      expect(policy.earliestDelivery(1_000, 1)).toBe(5_000);
    });

    // The log never shrinks: 5/1s with 5 deliveries in [0, 400], lowered to 2/1s and raised back
    // to 5/1s at 500, must not let a sixth go at 500 (six in [0, 1000)).
    it('lowering then raising the limit within one window still counts every delivery in it', () => {
      const policy = new SlidingWindowPolicy([perSecond(5)]);
      deliverAt(policy, [0, 100, 200, 300, 400]);
      policy.setRates([perSecond(2)]);
      policy.setRates([perSecond(5)]);
      expect(policy.earliestDelivery(500, 1)).toBe(1_000);
    });

    // Documented limit: deliveries older than the longest interval in force when the policy was
    // last asked are forgotten (that keeps the log small for large limits), so lengthening the
    // interval later counts only the deliveries of the previous longest interval.
    it('lengthening the interval counts the deliveries the log still holds, not those it forgot', () => {
      const remembered = new SlidingWindowPolicy([perSecond(3)]);
      deliverAt(remembered, [600, 700, 800]);
      remembered.setRates([{ limit: 3, interval: 10_000 }]);
      expect(remembered.earliestDelivery(1_500, 1)).toBe(10_600);

      const forgotten = new SlidingWindowPolicy([perSecond(3)]);
      deliverAt(forgotten, [0, 0, 0]);
      expect(forgotten.earliestDelivery(1_500, 1)).toBe(1_500);
      forgotten.setRates([{ limit: 3, interval: 10_000 }]);
      expect(forgotten.earliestDelivery(1_500, 1)).toBe(1_500);
    });
  });

  describe('countUntil done: cost held in flight', () => {
    it('counts held cost as occupying the window until it is released', () => {
      const policy = new SlidingWindowPolicy([perSecond(2)]);
      policy.holdInFlight(1);
      expect(policy.earliestDelivery(0, 1)).toBe(0);
      policy.holdInFlight(1);
      // Two in flight fill the window for as long as they run, however long that is.
      expect(policy.earliestDelivery(0, 1)).toBe(Number.POSITIVE_INFINITY);
      expect(policy.earliestDelivery(60_000, 1)).toBe(Number.POSITIVE_INFINITY);
    });

    it('a released delivery counts as made at its release time', () => {
      const policy = new SlidingWindowPolicy([perSecond(2)]);
      policy.holdInFlight(1);
      policy.holdInFlight(1);
      policy.releaseInFlight(3_000, 1);
      // One still in flight plus the one settled at 3000 fill the window until 4000.
      expect(policy.earliestDelivery(3_000, 1)).toBe(4_000);
      policy.releaseInFlight(3_500, 1);
      // Both now count as delivered, at 3000 and 3500.
      expect(policy.earliestDelivery(3_500, 1)).toBe(4_000);
      expect(policy.earliestDelivery(3_500, 2)).toBe(4_500);
    });

    it('held cost and delivered cost add up', () => {
      const policy = new SlidingWindowPolicy([perSecond(3)]);
      deliverAt(policy, [0]);
      policy.holdInFlight(2);
      // 1 delivered + 2 in flight fill 3/1s until the delivery at 0 leaves the window.
      expect(policy.earliestDelivery(100, 1)).toBe(1_000);
      expect(policy.earliestDelivery(100, 2)).toBe(Number.POSITIVE_INFINITY);
      policy.releaseInFlight(200, 2);
      expect(policy.earliestDelivery(200, 1)).toBe(1_000);
      expect(policy.earliestDelivery(200, 2)).toBe(1_200);
    });
  });

  describe('save and load', () => {
    it('round-trips the deliveries, shifted to the saver and then to the loader time base', () => {
      const original = new SlidingWindowPolicy([perSecond(3)]);
      deliverAt(original, [1_000, 1_200, 1_400]);
      const saved = original.save(-1_400);
      expect(saved).toEqual({
        kind: 'sliding-window',
        deliveries: [
          [-400, 1],
          [-200, 1],
          [0, 1],
        ],
        inFlightCost: 0,
      });
      // JSON is what persistence stores.
      const restored = new SlidingWindowPolicy([perSecond(3)]);
      restored.load(JSON.parse(JSON.stringify(saved)), 5_000);
      expect(restored.earliestDelivery(5_000, 1)).toBe(5_600);
    });

    it('keeps the cost held in flight', () => {
      const original = new SlidingWindowPolicy([perSecond(2)]);
      original.holdInFlight(2);
      const restored = new SlidingWindowPolicy([perSecond(2)]);
      restored.load(original.save(0), 0);
      expect(restored.earliestDelivery(10_000, 1)).toBe(Number.POSITIVE_INFINITY);
      restored.releaseInFlight(10_000, 2);
      expect(restored.earliestDelivery(10_000, 1)).toBe(11_000);
    });

    it('keeps each delivery cost', () => {
      const original = new SlidingWindowPolicy([perSecond(5)]);
      deliverAt(original, [0], 4);
      const restored = new SlidingWindowPolicy([perSecond(5)]);
      restored.load(original.save(0), 0);
      expect(restored.earliestDelivery(10, 1)).toBe(10);
      expect(restored.earliestDelivery(10, 2)).toBe(1_000);
    });
  });

  it('ignores activation (no timer of its own)', () => {
    const policy = new SlidingWindowPolicy([perSecond(1)]);
    deliverAt(policy, [0]);
    policy.activate();
    expect(policy.earliestDelivery(0, 1)).toBe(1_000);
  });
});
