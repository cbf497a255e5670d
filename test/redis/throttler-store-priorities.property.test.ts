import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Arrival, deadlineOf, overfullWindows, type RateConfig } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import { redisForFile } from '../support/redis.js';
import { machineRates, overtakings } from '../support/scenarios.js';
import { storeThrottler } from '../support/store-throttler.js';

/**
 * A throttler with a Redis store, random priorities and deadlines, in virtual time against the
 * real Redis: the store reserves in arrival order and the clearance lets the head take grants
 * (grant-book.ts, store-clearance.ts). Whatever the mix, every window holds its limit, the order
 * is by rank, no message goes after its deadline, and every message is delivered or expired once:
 * nothing waits for ever behind a grant nobody can use.
 */
const file = redisForFile();

const rateArbitrary = fc.record({
  limit: fc.integer({ min: 1, max: 4 }),
  interval: fc.integer({ min: 50, max: 1000 }),
});

/**
 * A backlog (a burst at 0 the store grants ahead, as far as it grants), then later messages, some
 * of higher priority or another cost than what holds the grants, some with deadlines.
 */
const scenario = rateArbitrary.chain((rate) => {
  const config: RateConfig = { overall: [rate], channels: {} };
  const message = fc.record({
    cost: fc.integer({ min: 1, max: rate.limit }),
    priority: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    maxWait: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined, freq: 3 }),
  });
  const burst = fc.array(message, { minLength: 2 * rate.limit, maxLength: 4 * rate.limit + 2 });
  const later = fc.array(fc.tuple(fc.integer({ min: 0, max: 2 * rate.interval }), message), { maxLength: 5 });
  return fc.tuple(burst, later, fc.constantFrom(0, 1000, 1_000_000)).map(([first, then, ahead]) => {
    const arrivals: Arrival[] = first.map((m, id) => ({ id, at: 0, channel: undefined, ...m }));
    let at = 0;
    for (const [gap, m] of then) {
      at += gap;
      arrivals.push({ id: arrivals.length, at, channel: undefined, ...m });
    }
    return { config, ahead, arrivals };
  });
});

async function run(config: RateConfig, ahead: number, arrivals: readonly Arrival[]) {
  const name = file.fresh('prio-prop');
  const t = storeThrottler(
    file.redis,
    name,
    { strategy: 'sliding-window', maxPriorityWait: 900, ...machineRates(config) },
    { grantGraceMs: 0, ...(ahead === 1_000_000 ? {} : { maxReserveAheadMs: ahead }) },
  );
  const expired: Array<{ id: number; at: number }> = [];
  t.actor.on('dropped', (event) => expired.push({ id: event.message.n as number, at: t.clock.now() }));
  // Virtual time stands still while a store call is out, as Redis TIME does not move during one
  // round trip: a grant is a wait from the moment Redis answered. (Moving it meanwhile is a slow
  // reply; with grantGraceMs 0 a grant may then go late, and only Redis time keeps the windows.)
  // Moves virtual time to `at`, stopping at every wake-up on the way, Redis answering in between.
  const advanceTo = async (at: number) => {
    for (;;) {
      await t.quiet();
      const { wakeAt } = t.actor.getSnapshot().context;
      const next = Math.min(wakeAt, at);
      if (next > t.clock.now()) t.clock.increment(next - t.clock.now());
      if (next >= at) return;
    }
  };
  for (const arrival of arrivals) {
    await advanceTo(arrival.at);
    const { priority, deadline, maxWait } = arrival;
    t.actor.send({ type: 'QUEUE', message: { type: 'job', n: arrival.id }, priority, deadline, maxWait });
  }
  // With nothing out and every answer handled, a message still waiting has a wake-up armed.
  for (;;) {
    await t.quiet();
    if (t.deliveries.length + expired.length >= arrivals.length) break;
    const { wakeAt } = t.actor.getSnapshot().context;
    if (!Number.isFinite(wakeAt)) break;
    t.clock.increment(Math.max(0, wakeAt - t.clock.now()));
  }
  t.actor.stop();
  await t.store.close();
  return { deliveries: t.deliveries.map((d) => ({ ...d, id: d.n })), expired };
}

describe('a throttler with a Redis store, random priorities and deadlines (virtual time, real Redis)', () => {
  it('keeps every window, orders by rank, keeps every deadline, and delivers or expires every message once', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ config, ahead, arrivals }) => {
        const { deliveries, expired } = await run(config, ahead, arrivals);
        expect(overfullWindows(config, deliveries)).toEqual([]);
        expect(overtakings(deliveries, arrivals, 'fifo', 900)).toEqual([]);
        for (const { id, at } of deliveries) expect(at).toBeLessThanOrEqual(deadlineOf(arrivals[id] as Arrival));
        const ids = [...deliveries, ...expired].map(({ id }) => id).sort((a, b) => a - b);
        expect(ids).toEqual(arrivals.map((arrival) => arrival.id));
      }),
      {
        numRuns: runs(25),
        // Random seeds; FC_SEED replays one (fast-check prints the seed of a failure).
        ...(process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) }),
        examples: [
          // Failed on a loaded machine while the test moved virtual time with a reserve call out
          // (grace 0: a grant sent late, and the next on time, crowding one window of sends).
          [
            {
              config: { overall: [{ limit: 1, interval: 534 }], channels: {} },
              ahead: 0,
              arrivals: [
                { id: 0, at: 0, channel: undefined, cost: 1, priority: 7, maxWait: 490 },
                { id: 1, at: 0, channel: undefined, cost: 1, priority: 4, maxWait: undefined },
                { id: 2, at: 1037, channel: undefined, cost: 1, priority: 5, maxWait: undefined },
              ],
            },
          ],
        ],
      },
    );
  }, 300_000);

  // Found by the property (seed 20_261_127): message 3 (priority 6, maxWait 0) took message 2's grant,
  // message 2 took it back, and message 3 expired; the reserve line skipped message 3's old entry
  // by its object, which had come back, so a grant was asked for it after all (reserve-line.ts). No
  // one sent on that grant at its time (1984); message 5, arriving at 1985, took it 1 ms late, and
  // message 7 went at 2976 on its own grant: three sends in [1985, 2977) against a limit of 2.
  it('asks no grant for a priority message that expired after taking one and giving it back (grace 0, reserve-ahead 1 s)', async () => {
    const config: RateConfig = { overall: [{ limit: 2, interval: 992 }], channels: {} };
    const plain = (id: number, at: number): Arrival =>
      ({ id, at, channel: undefined, cost: 1, priority: undefined, maxWait: undefined }) as Arrival;
    const arrivals: Arrival[] = [
      plain(0, 0),
      plain(1, 0),
      plain(2, 0),
      { ...plain(3, 0), priority: 6, maxWait: 0 } as Arrival,
      plain(4, 1362),
      plain(5, 1985),
      plain(6, 1985),
      plain(7, 1985),
    ];
    const { deliveries, expired } = await run(config, 1000, arrivals);
    expect(overfullWindows(config, deliveries)).toEqual([]);
    expect(expired.map(({ id }) => id)).toEqual([3]);
    expect(deliveries.map(({ id, at }) => [id, at])).toEqual([
      [0, 0],
      [1, 0],
      [2, 992],
      [4, 1362],
      [5, 1985],
      [6, 2354],
      [7, 2977],
    ]);
  }, 60_000);
});
