import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { overfullWindows } from '../support/oracle.js';
import { deleteLimiters, redisForFile } from '../support/redis.js';
import { throughStoreCalls } from '../support/store-calls.js';
import { type StoreThrottler, stoppedAfterEach, storeThrottler } from '../support/store-throttler.js';

/**
 * Issue 33, section 1: after Redis came back (empty), a throttler with messages waiting must always
 * have either a call out or its timer armed. A fleet of four at `20/500ms` with onStoreDown 'local'
 * stalled for good: the clearance answered "until the store wakes it" on the strength of an ask that
 * never went (a flush queued for the outage's reports only swallowed the ask for messages; a report
 * told `later` raised the wait after the answer had woken the throttler), so nothing was out, no timer
 * was armed, and no event came. Here in virtual time, the outage deterministic: while "down", every
 * script call of the store fails at once (as a dead server's would after its timeout), and Redis
 * comes back with the limiter's keys deleted (a restart without persistence).
 */
const file = redisForFile();
const running = stoppedAfterEach();
const LIMIT = 20;
const TASKS = 40;

/** The real client, whose store calls fail while `down.is` holds (nothing reaches Redis then). */
function failingWhileDown(redis: Redis, down: { is: boolean }): Redis {
  return throughStoreCalls(redis, (call) =>
    down.is ? Promise.reject(new Error('connect ECONNREFUSED (the test took the store down)')) : call(),
  );
}

/** The throttlers that wait for nothing: messages queued, no call out (all are quiet), no timer. */
function stalled(fleet: StoreThrottler[]): number[] {
  return fleet.flatMap((t, index) => {
    const { counts, wakeAt } = t.actor.getSnapshot().context;
    return counts.queued > 0 && !Number.isFinite(wakeAt) ? [index] : [];
  });
}

async function runOutage(onStoreDown: 'pause' | 'local') {
  const name = file.fresh(`recovery-wakeups-${onStoreDown}`);
  const clock = new SimulatedClock();
  const down = { is: false };
  const fleet = Array.from({ length: 4 }, () =>
    storeThrottler(
      failingWhileDown(file.redis, down),
      name,
      { rate: `${LIMIT}/500ms`, strategy: 'sliding-window' },
      onStoreDown === 'local' ? { onStoreDown, localShare: 0.25 } : { onStoreDown },
      clock,
    ),
  );
  running.push(...fleet);
  // Each queues 8 messages every 200 ms until it has queued 40: the fleet asks for twice the limit, so
  // every throttler has a backlog through the outage.
  let fedAt = Number.NEGATIVE_INFINITY;
  const feed = () => {
    if (clock.now() < fedAt + 200) return;
    fedAt = clock.now();
    for (const [index, t] of fleet.entries()) {
      const from = queued[index] as number;
      if (from >= TASKS) continue;
      t.actor.send({
        type: 'QUEUE_BATCH',
        messages: Array.from({ length: 8 }, (_, i) => ({ message: { type: 'job', n: from + i } })),
      });
      queued[index] = from + 8;
    }
  };
  const queued = fleet.map(() => 0);
  const stalls: Array<{ at: number; throttlers: number[] }> = [];
  let backAt = Number.NaN;
  const done = () => fleet.every((t) => t.deliveries.length === TASKS);
  // At most a minute of virtual time; every step waits for the replies out (an event, not real time).
  while (!done() && clock.now() < 60_000) {
    feed();
    await Promise.all(fleet.map((t) => t.quiet()));
    if (!down.is && Number.isNaN(backAt) && clock.now() >= 1000) down.is = true;
    if (down.is && clock.now() >= 2500) {
      await deleteLimiters(file.redis, [name]);
      down.is = false;
      backAt = clock.now();
      continue;
    }
    const stuck = stalled(fleet);
    if (stuck.length > 0) {
      stalls.push({ at: clock.now(), throttlers: stuck });
      // What one more message did in the runs (it woke every stuck one): the test goes on to count.
      for (const index of stuck) fleet[index]?.actor.send({ type: 'WAKE' } as never);
    }
    const next = Math.min(...fleet.map((t) => t.actor.getSnapshot().context.wakeAt));
    clock.increment(Math.max(0, Math.min(50, (Number.isFinite(next) ? next : clock.now() + 50) - clock.now())));
  }
  return { fleet, stalls, backAt };
}

describe('a fleet whose Redis is lost and comes back empty (virtual time)', () => {
  for (const onStoreDown of ['local', 'pause'] as const) {
    it(`with onStoreDown '${onStoreDown}': no throttler waits for nothing, and every message goes once`, async () => {
      const { fleet, stalls, backAt } = await runOutage(onStoreDown);
      expect(stalls).toEqual([]);
      for (const t of fleet) {
        expect(t.deliveries.map((d) => d.n).sort((a, b) => a - b)).toEqual([...Array(TASKS).keys()]);
        expect(t.emitted.some((e) => e.type === 'storeDown')).toBe(true);
        // One that still had messages to send when Redis was back heard of it (storeUp comes with a call).
        if ((t.deliveries.at(-1)?.at ?? 0) > backAt)
          expect(t.emitted.some((e) => e.type === 'storeUp' && e.at >= backAt)).toBe(true);
      }
      // After every throttler was back on the store and the outage's local sends left every window, the
      // merged windows hold the limit (across the outage itself: test/redis/local-recovery.test.ts).
      const allUp = Math.max(...fleet.flatMap((t) => t.emitted.filter((e) => e.type === 'storeUp').map((e) => e.at)));
      const after = fleet.flatMap((t) => t.deliveries).filter((d) => d.at >= allUp + 520);
      expect(overfullWindows({ overall: [{ limit: LIMIT, interval: 500 }], channels: {} }, after)).toEqual([]);
    }, 60_000);
  }
});
