import { afterEach, describe, expect, it } from 'vitest';
import { overfullWindows, type RateConfig } from '../support/oracle.js';
import { redisForFile } from '../support/redis.js';
import { type FleetArrival, StoreFleet } from '../support/store-fleet.js';

/**
 * Per-channel ordering on the store: one reservation line per key, so a quiet key never waits behind
 * a noisy key's backlog, in any of the processes sharing the limit, while the overall rate and every
 * key's stay strict. Four throttlers on one limiter in virtual time (real Redis, its clock the test's):
 * a reply takes no virtual time, so "its own key's window plus one round trip" is its own key's window.
 */
const file = redisForFile();
const fleets: StoreFleet[] = [];
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.stop();
});

const OVERALL = { limit: 40, interval: 1000 };
const KEY = { limit: 5, interval: 1000 };
const CONFIG: RateConfig = { overall: [OVERALL], channels: { noisy: [KEY], quiet: [KEY] } };

/** A noisy key's 1,000 waiting (250 in each process) and a quiet key's one message a second, in turn from each. */
function noisyAndQuiet(seconds: number): FleetArrival[] {
  const arrivals: FleetArrival[] = [];
  for (let n = 0; n < 1000; n++) arrivals.push({ at: 0, throttler: n % 4, channel: 'noisy', n });
  for (let s = 0; s < seconds; s++)
    arrivals.push({ at: 500 + 1000 * s, throttler: s % 4, channel: 'quiet', n: 10_000 + s });
  return arrivals;
}

async function runScenario(ordering: 'fifo' | 'per-channel', seconds: number) {
  const fleet = new StoreFleet(
    file.redis,
    file.fresh(`lines-${ordering}`),
    4,
    { rate: [OVERALL], strategy: 'sliding-window', keys: { rate: [KEY] }, ordering },
    { grantGraceMs: 0 },
  );
  fleets.push(fleet);
  // Read at least once per interval, so that the fleet's audit is exact (gaps 0).
  const last = await fleet.runAudited(noisyAndQuiet(seconds), seconds * 1000 + 600);
  const quietWaits = fleet.deliveries
    .filter((delivery) => delivery.channel === 'quiet')
    .map((delivery) => delivery.at - (fleet.sentAt.get(delivery.n) as number));
  return { fleet, quietWaits, last };
}

describe('per-channel ordering on the store: no key waits behind another key', () => {
  it("delivers a quiet key's messages within its own window while a noisy key's 1,000 wait, in 4 processes", async () => {
    const { fleet, quietWaits, last } = await runScenario('per-channel', 8);
    // Every quiet message went, at once: its own key never held it, and a reply takes no virtual time.
    expect(quietWaits).toHaveLength(8);
    expect(Math.max(...quietWaits)).toBeLessThanOrEqual(1);
    // The noisy key got its whole rate meanwhile (5 a second from t = 0), never more.
    const noisy = fleet.deliveries.filter((delivery) => delivery.channel === 'noisy');
    expect(noisy.length).toBe(5 * 9);
    expect(overfullWindows(CONFIG, fleet.deliveries)).toEqual([]);
    expect(last.windowsOver).toBe(0);
    expect(last.gaps).toBe(0);
    // The audit counts the grants up to one longest interval before its read: every one of them.
    expect(last.deliveries).toBe(fleet.deliveries.filter((delivery) => delivery.at <= last.settledUntil).length);
  });

  it('where FIFO across keys kept the quiet key behind the backlog (the same run with ordering fifo)', async () => {
    const { quietWaits, fleet, last } = await runScenario('fifo', 4);
    // Behind the noisy key's reservations: seconds, or not sent at all within the run.
    expect(quietWaits.length < 4 || Math.max(...quietWaits) > 1000).toBe(true);
    expect(overfullWindows(CONFIG, fleet.deliveries)).toEqual([]);
    expect(last.windowsOver).toBe(0);
  });
});
