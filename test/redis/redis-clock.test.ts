import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DRIFT, MIN_SEND_WINDOW_MS, RedisClock, SLOW_AFTER_REPLIES } from '../../src/store/store-clock.js';
import { runs } from '../support/property-runs.js';

/**
 * Mapping a grant's Redis time onto this process's clock (src/store/store-clock.ts), against the
 * truth: Redis' clock as a line of local time with some offset and a rate off by at most MAX_DRIFT.
 * Whatever the round trips were (the script ran anywhere inside each), every moment of a grant's
 * window is, on Redis' clock, at or after the grant and at most its grace after it.
 */
/** Redis' clock as a line of local time (an offset, a rate off by at most MAX_DRIFT) and round trips to it. */
const linkArbitrary = (maxRoundTrip: number, maxTrips: number) =>
  fc.record({
    offset: fc.double({ min: -1e7, max: 1e7, noNaN: true }),
    rate: fc.double({ min: -MAX_DRIFT, max: MAX_DRIFT, noNaN: true }),
    trips: fc.array(
      fc.record({
        gap: fc.double({ min: 0, max: 5_000, noNaN: true }),
        roundTrip: fc.double({ min: 0, max: maxRoundTrip, noNaN: true }),
        ranAt: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      { minLength: 1, maxLength: maxTrips },
    ),
  });

/** A RedisClock that learned from those round trips (the script ran somewhere inside each), and the truth. */
function learned({
  offset,
  rate,
  trips,
}: {
  offset: number;
  rate: number;
  trips: Array<{ gap: number; roundTrip: number; ranAt: number }>;
}) {
  const redisAt = (local: number) => local * (1 + rate) + offset;
  const clock = new RedisClock();
  let local = 1_000;
  for (const { gap, roundTrip, ranAt } of trips) {
    const askedAt = local + gap;
    const arrivedAt = askedAt + roundTrip;
    clock.learn(askedAt, arrivedAt, redisAt(askedAt + ranAt * roundTrip));
    local = arrivedAt;
  }
  return { clock, redisAt, local };
}

describe('RedisClock', () => {
  it('puts every send of a window inside [grant, grant + grace] on Redis time, whatever the round trips and the drift', () => {
    fc.assert(
      fc.property(
        linkArbitrary(60, 12),
        fc.double({ min: 0, max: 60_000, noNaN: true }),
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (link, ahead, grace, where) => {
          const { clock, redisAt, local } = learned(link);
          const grant = redisAt(local) + ahead;
          const { from, until } = clock.window(grant, grace);
          expect(redisAt(from)).toBeGreaterThanOrEqual(grant - 1e-6);
          if (until < from) return;
          const send = from + where * (until - from);
          expect(redisAt(send)).toBeGreaterThanOrEqual(grant - 1e-6);
          expect(redisAt(send)).toBeLessThanOrEqual(grant + grace + 1e-6);
        },
      ),
      { numRuns: runs(2000) },
    );
  });

  it('keeps the uncertainty of the fastest recent round trip: a slow reply after a fast one leaves the grace usable', () => {
    const clock = new RedisClock();
    const offset = 5_000;
    clock.learn(100, 100.5, 100.2 + offset);
    // A reply that took 40 ms (a busy event loop): alone it would leave nothing of a 20 ms grace.
    clock.learn(200, 240, 230 + offset);
    const { from, until } = clock.window(300 + offset, 20);
    expect(from).toBeGreaterThanOrEqual(300);
    expect(until - from).toBeGreaterThan(19);
    const alone = new RedisClock();
    alone.learn(200, 240, 230 + offset);
    const slow = alone.window(300 + offset, 20);
    expect(slow.until).toBeLessThan(slow.from);
  });

  it('forgets what it learned when a clock steps: a reply outside the bounds starts them again', () => {
    const clock = new RedisClock();
    clock.learn(100, 101, 100.5 + 5_000);
    // Redis failed over to a host whose clock is 2 s ahead.
    clock.learn(200, 201, 200.5 + 7_000);
    const { from } = clock.window(300 + 7_000, 20);
    expect(from).toBeGreaterThanOrEqual(300);
    expect(from).toBeLessThan(301);
  });

  it('answers the same as the moment comes (no creeping wake-ups), and has no window before any reply', () => {
    const clock = new RedisClock();
    expect(clock.window(0, 20).from).toBe(Number.POSITIVE_INFINITY);
    clock.learn(0, 1, 0.5);
    const first = clock.window(1_000, 20);
    expect(clock.window(1_000, 20)).toEqual(first);
    // Drift counted until the send: at most 100 ppm of the 1 s ahead, on each side.
    expect(first.from).toBeGreaterThanOrEqual(1_000);
    expect(first.from).toBeLessThan(1_000 + 0.5 + 0.2);
    const exact = new RedisClock(0);
    exact.learn(0, 0, 0);
    expect(exact.window(1_000, 20)).toEqual({ from: 1_000, until: 1_020 });
    expect(exact.window(1_000, 0)).toEqual({ from: 1_000, until: Number.POSITIVE_INFINITY });
  });

  it('never stalls on a link slower than the grace: from SLOW_AFTER_REPLIES replies on, a window of the grace, never early, at most grace + round trip late', () => {
    fc.assert(
      fc.property(
        linkArbitrary(200, 10),
        fc.double({ min: 0, max: 60_000, noNaN: true }),
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (link, ahead, grace, where) => {
          const { clock, redisAt, local } = learned(link);
          const grant = redisAt(local) + ahead;
          const plain = clock.window(grant, grace);
          const { from, until } = clock.sendWindow(grant, grace);
          expect(from).toBe(plain.from);
          if (plain.until - plain.from >= MIN_SEND_WINDOW_MS) {
            // The grace leaves enough: nothing changes, and no storeSlow.
            expect(until).toBe(plain.until);
            return;
          }
          if (!clock.tooSlowFor(grace, from)) {
            // Too few replies yet (the first include connecting, a cold process): asked again, as before.
            expect(until).toBe(plain.until);
            return;
          }
          expect(until - from).toBeCloseTo(grace, 6);
          expect(clock.uncertainty(from)).toBeGreaterThan(grace / 2);
          const send = from + where * (until - from);
          expect(redisAt(send)).toBeGreaterThanOrEqual(grant - 1e-6);
          // Redis' clock may run MAX_DRIFT faster than ours across the window of the grace too.
          expect(redisAt(send)).toBeLessThanOrEqual(grant + grace * (1 + MAX_DRIFT) + clock.uncertainty(from) + 1e-6);
        },
      ),
      { numRuns: runs(2000) },
    );
  });

  it('counts a link as slow only from SLOW_AFTER_REPLIES replies that all leave less than the minimum of the grace', () => {
    const clock = new RedisClock(0);
    // Redis 1,000 ms ahead; every round trip 30 ms, the script running halfway.
    for (let n = 1; n <= SLOW_AFTER_REPLIES; n++) {
      const askedAt = n * 100;
      clock.learn(askedAt, askedAt + 30, askedAt + 15 + 1_000);
      const window = clock.sendWindow(2_000, 20);
      if (n < SLOW_AFTER_REPLIES) {
        expect(clock.tooSlowFor(20, window.from)).toBe(false);
        expect(window.until).toBeLessThan(window.from);
      } else {
        expect(clock.tooSlowFor(20, window.from)).toBe(true);
        expect(window.until - window.from).toBeCloseTo(20, 6);
      }
    }
    expect(clock.uncertainty(500)).toBeCloseTo(30, 6);
    // A fast reply ends it: the plain window again.
    clock.learn(600, 601, 600.5 + 1_000);
    expect(clock.tooSlowFor(20, 700)).toBe(false);
    expect(clock.sendWindow(2_000, 20)).toEqual(clock.window(2_000, 20));
  });
});
