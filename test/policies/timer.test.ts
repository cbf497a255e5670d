import { describe, expect, it } from 'vitest';
import { VoucherTimerPolicy } from '../../src/policies/index.js';
import type { Rate } from '../../src/rate/index.js';

const perSecond = (limit: number): Rate => ({ limit, interval: 1_000 });

/** Records deliveries at each time, checking first that a voucher allowed each one then. */
function deliverAt(policy: VoucherTimerPolicy, times: number[], cost = 1): void {
  for (const at of times) {
    expect(policy.earliestDelivery(at, cost)).toBe(at);
    policy.recordDelivery(at, cost);
  }
}

function activeTimer(rate: Rate, activatedAt: number): VoucherTimerPolicy {
  const policy = new VoucherTimerPolicy(rate);
  policy.activate(activatedAt);
  return policy;
}

describe('VoucherTimerPolicy', () => {
  it('hands out limit vouchers per period, then waits for the next tick', () => {
    const policy = activeTimer(perSecond(3), 0);
    deliverAt(policy, [0, 0, 0]);
    expect(policy.earliestDelivery(0, 1)).toBe(1_000);
    expect(policy.earliestDelivery(999, 1)).toBe(1_000);
  });

  it('refills the full set at each tick boundary, computed lazily when asked', () => {
    const policy = activeTimer(perSecond(3), 0);
    deliverAt(policy, [0, 0, 0]);
    expect(policy.earliestDelivery(1_000, 1)).toBe(1_000);
    deliverAt(policy, [1_000, 1_500, 1_999]);
    expect(policy.earliestDelivery(1_999, 1)).toBe(2_000);
  });

  it('starts its period when activated, not at time 0', () => {
    const policy = activeTimer(perSecond(2), 250);
    deliverAt(policy, [250, 600]);
    expect(policy.earliestDelivery(1_000, 1)).toBe(1_250);
    deliverAt(policy, [1_250, 1_250]);
    expect(policy.earliestDelivery(1_300, 1)).toBe(2_250);
  });

  it('keeps its ticks on the grid of the activation time after several idle periods', () => {
    const policy = activeTimer(perSecond(2), 100);
    deliverAt(policy, [100, 100]);
    deliverAt(policy, [3_500, 3_500]);
    // Ticks at 100, 1100, 2100, 3100, 4100: the period holding 3500 ends at 4100.
    expect(policy.earliestDelivery(3_500, 1)).toBe(4_100);
  });

  it('does not save up vouchers while idle: a long pause still gives one set', () => {
    const policy = activeTimer(perSecond(2), 0);
    deliverAt(policy, [60_000, 60_000]);
    expect(policy.earliestDelivery(60_000, 1)).toBe(61_000);
  });

  it('is the weak guarantee: up to 2 x limit land within one interval straddling a tick', () => {
    const policy = activeTimer(perSecond(3), 0);
    deliverAt(policy, [900, 900, 900, 1_000, 1_000, 1_000]);
    expect(policy.earliestDelivery(1_000, 1)).toBe(2_000);
  });

  it('spends one voucher per unit of cost', () => {
    const policy = activeTimer(perSecond(3), 0);
    deliverAt(policy, [0], 2);
    expect(policy.earliestDelivery(0, 2)).toBe(1_000);
    expect(policy.earliestDelivery(0, 1)).toBe(0);
    expect(policy.earliestDelivery(1_000, 3)).toBe(1_000);
  });

  it('before activation lets a delivery go and starts the period at it', () => {
    const policy = new VoucherTimerPolicy(perSecond(2));
    deliverAt(policy, [400, 400]);
    expect(policy.earliestDelivery(400, 1)).toBe(1_400);
  });

  describe('activate after a period in which nothing was delivered', () => {
    it('starts a new period: only a delivery holds its period over an activation', () => {
      // 2 per 250 ms: both vouchers spent at 0; the throttler is asked at the 250 tick (the period
      // rolls there) but delivers nothing, goes idle and is activated again at 400.
      const policy = activeTimer({ limit: 2, interval: 250 }, 0);
      deliverAt(policy, [0, 0]);
      expect(policy.earliestDelivery(250, 1)).toBe(250);
      policy.activate(400);
      deliverAt(policy, [400, 400]);
      expect(policy.earliestDelivery(400, 1)).toBe(650);
    });
  });

  describe('activate', () => {
    it('within a running period keeps that period and its spent vouchers', () => {
      const policy = activeTimer(perSecond(2), 0);
      deliverAt(policy, [0]);
      // The target was unset and set again at 600: a fresh set here would exceed the rate.
      policy.activate(600);
      deliverAt(policy, [600]);
      expect(policy.earliestDelivery(600, 1)).toBe(1_000);
    });

    it('after the running period ended starts a new period at the activation time', () => {
      const policy = activeTimer(perSecond(2), 0);
      deliverAt(policy, [0, 0]);
      policy.activate(1_500);
      deliverAt(policy, [1_500, 1_500]);
      expect(policy.earliestDelivery(1_500, 1)).toBe(2_500);
    });

    it('exactly at the period end starts a new period there', () => {
      const policy = activeTimer(perSecond(1), 0);
      deliverAt(policy, [0]);
      policy.activate(1_000);
      deliverAt(policy, [1_000]);
      expect(policy.earliestDelivery(1_000, 1)).toBe(2_000);
    });
  });

  describe('setRates', () => {
    it('restarts the period now, as Akka SetRate does; what the period cut short delivered counts against the new limit', () => {
      const policy = activeTimer(perSecond(3), 0);
      deliverAt(policy, [0, 0, 0]);
      policy.setRates([perSecond(5)], 500);
      deliverAt(policy, [500, 500]);
      expect(policy.earliestDelivery(500, 1)).toBe(1_500);
      expect(policy.smallestLimit).toBe(5);
      // Lowered below what was spent: nothing more until the restarted period ends.
      policy.setRates([perSecond(2)], 1_500);
      deliverAt(policy, [1_500, 1_500]);
      policy.setRates([perSecond(1)], 1_700);
      expect(policy.earliestDelivery(1_700, 1)).toBe(2_700);
    });

    it('the same rate set again after every delivery opens no burst: the limit per period, as without it', () => {
      const policy = activeTimer(perSecond(2), 0);
      const sent: number[] = [];
      for (let at = 0; sent.length < 6; ) {
        at = policy.earliestDelivery(at, 1);
        policy.recordDelivery(at, 1);
        sent.push(at);
        policy.setRates([perSecond(2)], at);
      }
      // Each SET_RATE restarts the tick where it lands, so the ticks follow the second delivery of each pair.
      expect(sent).toEqual([0, 0, 1_000, 1_000, 2_000, 2_000]);
    });

    it('on the very millisecond of a tick, the tick has refilled the vouchers first', () => {
      const policy = activeTimer(perSecond(2), 0);
      deliverAt(policy, [0, 0]);
      policy.setRates([perSecond(2)], 1_000);
      deliverAt(policy, [1_000, 1_000]);
      expect(policy.earliestDelivery(1_000, 1)).toBe(2_000);
    });

    it('keeps the restarted period over an activation when a delivery period was running', () => {
      const policy = activeTimer(perSecond(3), 0);
      deliverAt(policy, [0]);
      policy.setRates([{ limit: 3, interval: 2_000 }], 500);
      policy.activate(2_400);
      // Two vouchers: the delivery at 0 counts in the restarted period too.
      deliverAt(policy, [2_400, 2_400]);
      expect(policy.earliestDelivery(2_400, 1)).toBe(2_500);
    });

    it('before activation only changes the rate: the period starts on activation', () => {
      const policy = new VoucherTimerPolicy(perSecond(1));
      policy.setRates([perSecond(2)], 100);
      policy.activate(700);
      deliverAt(policy, [700, 700]);
      expect(policy.earliestDelivery(700, 1)).toBe(1_700);
    });
  });

  it('saves and loads its period, vouchers and hold, shifted', () => {
    const original = activeTimer(perSecond(3), 1_000);
    deliverAt(original, [1_200, 1_300]);
    const saved = original.save(-1_300);
    expect(saved).toEqual({ kind: 'timer', periodStart: -300, vouchers: 1, latestDeliveryPeriodEnd: 700 });
    const restored = new VoucherTimerPolicy(perSecond(3));
    restored.load(JSON.parse(JSON.stringify(saved)), 10_000);
    // The period of the latest delivery ends at 10_700: an activation before then keeps it.
    restored.activate(10_600);
    deliverAt(restored, [10_600]);
    expect(restored.earliestDelivery(10_600, 1)).toBe(10_700);
  });

  it('saves a never-started period as null and loads it back as not started', () => {
    const restored = new VoucherTimerPolicy(perSecond(1));
    restored.load(new VoucherTimerPolicy(perSecond(1)).save(0), 0);
    restored.activate(5_000);
    deliverAt(restored, [5_000]);
    expect(restored.earliestDelivery(5_000, 1)).toBe(6_000);
  });
});
