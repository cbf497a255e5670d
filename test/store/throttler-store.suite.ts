import { describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../../src/machine/named-machine.js';
import { restoreThrottler } from '../../src/machine/persistence.js';
import { type SharedStore, StoreConflictError } from '../../src/store/index.js';
import { overfullWindows } from '../support/oracle.js';
import { uniqueName } from '../support/redis.js';
import { type StoreBackend, stoppedAfterEach, storeThrottler } from '../support/store-throttler.js';

/**
 * The throttler machine with a store: the seam answered by reservation, in virtual time, the same tests
 * for every backend (test/redis/throttler-store.test.ts: the real Redis; throttler-memory-store.test.ts:
 * the memory store, in the quick tier). `names` collects the limiters' names, for a backend to delete.
 */
export function describeThrottlerStore(
  label: string,
  backend: () => StoreBackend,
  makeStore: (name: string) => SharedStore,
  names: string[] = [],
): void {
  const running = stoppedAfterEach();

  function throttler(
    ...args: Parameters<typeof storeThrottler> extends [unknown, unknown, ...infer Rest] ? Rest : never
  ) {
    const name = uniqueName('machine');
    names.push(name);
    const created = storeThrottler(backend(), name, ...args);
    running.push(created);
    return created;
  }

  const burst = (n: number, extra: Record<string, unknown> = {}) =>
    Array.from({ length: n }, (_, i) => ({ message: { type: 'job', n: i }, ...extra }));

  describe(`a throttler with ${label}`, () => {
    it('sends each message at the time Redis granted, in order, never over the limit', async () => {
      const t = throttler({ rate: '3/1s', strategy: 'sliding-window' }, { grantGraceMs: 0 });
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(10) });
      await t.runUntil(10);
      expect(t.deliveries.map((d) => d.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(t.deliveries.map((d) => d.at)).toEqual([0, 0, 0, 1000, 1000, 1000, 2000, 2000, 2000, 3000]);
      expect(overfullWindows({ overall: [{ limit: 3, interval: 1000 }], channels: {} }, t.deliveries)).toEqual([]);
    });

    it('spaces grants by the grace (20 ms by default), so that sends up to that late keep every window', async () => {
      const t = throttler({ rate: '3/1s', strategy: 'sliding-window' });
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(7) });
      await t.runUntil(7);
      expect(t.deliveries.map((d) => d.at)).toEqual([0, 0, 0, 1020, 1020, 1020, 2040]);
      // Each send up to 20 ms late: still never more than 3 in any second.
      const late = t.deliveries.map((d, i) => ({ ...d, at: d.at + (i % 2 === 0 ? 20 : 0) }));
      expect(overfullWindows({ overall: [{ limit: 3, interval: 1000 }], channels: {} }, late)).toEqual([]);
    });

    it('gives back a grant it could not use within the grace, and asks again: never sends late', async () => {
      const t = throttler({ rate: '2/1s', strategy: 'sliding-window' });
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(4) });
      await t.runUntil(2);
      await t.quiet();
      // The timer comes 500 ms late (a blocked event loop): the grants at 1020 are stale by then.
      t.clock.increment(1520 - t.clock.now());
      await t.runUntil(4);
      expect(t.deliveries.map((d) => d.at)).toEqual([0, 0, 1520, 1520]);
      expect(overfullWindows({ overall: [{ limit: 2, interval: 1000 }], channels: {} }, t.deliveries)).toEqual([]);
    });

    it('shares the limit between two throttlers using the same name', async () => {
      const name = uniqueName('shared');
      names.push(name);
      const a = storeThrottler(backend(), name, { rate: '4/1s', strategy: 'sliding-window' });
      const b = storeThrottler(backend(), name, { rate: '4/1s', strategy: 'sliding-window' }, {}, a.clock);
      running.push(a, b);
      a.actor.send({ type: 'QUEUE_BATCH', messages: burst(6) });
      b.actor.send({ type: 'QUEUE_BATCH', messages: burst(6) });
      for (let steps = 0; a.deliveries.length + b.deliveries.length < 12 && steps < 100; steps++) {
        await Promise.all([a.quiet(), b.quiet()]);
        const wakes = [a, b].map((t) => t.actor.getSnapshot().context.wakeAt).filter(Number.isFinite);
        if (wakes.length === 0) continue;
        a.clock.increment(Math.max(0, Math.min(...wakes) - a.clock.now()));
      }
      const all = [...a.deliveries, ...b.deliveries];
      expect(all).toHaveLength(12);
      expect(overfullWindows({ overall: [{ limit: 4, interval: 1000 }], channels: {} }, all)).toEqual([]);
      // Together they get the limit, not each of them.
      expect(all.filter((d) => d.at < 1000)).toHaveLength(4);
    });

    it('counts channels and costs in the store', async () => {
      const t = throttler(
        { rate: '10/1s', strategy: 'sliding-window', channels: { search: '2/1s' } },
        { grantGraceMs: 0 },
      );
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(4, { channel: 'search' }) });
      t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 9 }, cost: 3 });
      await t.runUntil(5);
      expect(t.deliveries.map((d) => [d.n, d.at])).toEqual([
        [0, 0],
        [1, 0],
        [2, 1000],
        [3, 1000],
        [9, 1000],
      ]);
    });

    it('gives an unused reservation back when its message is cancelled', async () => {
      const t = throttler({ rate: '2/1s', strategy: 'sliding-window' }, { grantGraceMs: 0 });
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(4, {}).map((m, i) => ({ ...m, id: i })) });
      await t.quiet();
      // Messages 2 and 3 hold grants at 1000; cancelling 2 gives its slot to 3... and to the next one.
      t.actor.send({ type: 'CANCEL', id: 2 });
      t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 4 } });
      await t.runUntil(4);
      expect(t.deliveries.map((d) => [d.n, d.at])).toEqual([
        [0, 0],
        [1, 0],
        [3, 1000],
        [4, 1000],
      ]);
      expect(t.emitted.filter((e) => e.type === 'dropped')).toHaveLength(1);
    });

    it('pauses every throttler of the fleet, and gives back grants inside the pause', async () => {
      const name = uniqueName('pause');
      names.push(name);
      const a = storeThrottler(backend(), name, { rate: '2/1s', strategy: 'sliding-window' });
      const b = storeThrottler(backend(), name, { rate: '2/1s', strategy: 'sliding-window' }, {}, a.clock);
      running.push(a, b);
      b.actor.send({ type: 'QUEUE_BATCH', messages: burst(4) });
      await b.quiet();
      a.actor.send({ type: 'PAUSE', duration: 5000 });
      for (let steps = 0; b.deliveries.length < 4 && steps < 100; steps++) {
        await Promise.all([a.quiet(), b.quiet()]);
        const wakeAt = b.actor.getSnapshot().context.wakeAt;
        if (Number.isFinite(wakeAt)) b.clock.increment(Math.max(0, wakeAt - b.clock.now()));
      }
      // Two went at 0 before the pause; the rest waited for its end, 5 s later, and went then or within the
      // grace the script spaces grants by (20 ms): whether b asks again for the grants it gave back before or
      // after the pause reaches Redis is a race of real round trips (a loaded machine saw 5020, 5020).
      const times = b.deliveries.map((d) => d.at);
      expect(times.slice(0, 2)).toEqual([0, 0]);
      expect(times).toHaveLength(4);
      for (const at of times.slice(2)) {
        expect(at).toBeGreaterThanOrEqual(5000);
        expect(at).toBeLessThanOrEqual(5020);
      }
    });

    it('asks again at once for grants it let go stale, whatever a later message was told', async () => {
      const t = throttler({ rate: '2/10s', strategy: 'sliding-window' }, { maxReserveAheadMs: 1000 });
      const target = t.actor.getSnapshot().context.target;
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(3) });
      // The reserve call is out; without a target the grants (two now, the third told "later") go unused.
      t.actor.send({ type: 'SET_TARGET', target: undefined });
      // Its answer is back before the clock moves: a reply handled 100 ms after it left would be a 100 ms
      // round trip, and stale grants are moved that far ahead of Redis' now (late-grants.ts), to 200.
      await t.quiet();
      t.clock.increment(100);
      t.actor.send({ type: 'SET_TARGET', target });
      await t.runUntil(2);
      // Moved to Redis' now, 100 (late-grants.ts), not held until the third message's retry, 9 s later.
      expect(t.deliveries.map((d) => d.at)).toEqual([100, 100]);
    });

    it("tells of a process whose rates differ from the fleet's (storeConflict with a StoreConflictError), and keeps its queue", async () => {
      const name = uniqueName('conflict');
      names.push(name);
      const first = storeThrottler(backend(), name, { rate: '4/1s', strategy: 'sliding-window' });
      const second = storeThrottler(backend(), name, { rate: '5/1s', strategy: 'sliding-window' }, {}, first.clock);
      running.push(first, second);
      first.actor.send({ type: 'QUEUE', message: { type: 'job', n: 0 } });
      await first.runUntil(1);
      second.actor.send({ type: 'QUEUE', message: { type: 'job', n: 1 } });
      await second.quiet();
      const conflict = second.emitted.find((event) => event.type === 'storeConflict') as { error: Error } | undefined;
      expect(conflict?.error).toBeInstanceOf(StoreConflictError);
      expect(conflict?.error.message).toMatch(/^rate must be the same in every process sharing the Redis store/);
      expect(second.emitted.map((event) => event.type)).not.toContain('storeDown');
      expect(second.deliveries).toEqual([]);
      expect(second.actor.getSnapshot().context.counts.queued).toBe(1);
    });

    it('keeps every window a stated transit longer (the store is configured with the widened intervals)', async () => {
      const t = throttler({ rate: '3/1s', strategy: 'sliding-window', transit: '250ms' }, { grantGraceMs: 0 });
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(7) });
      await t.runUntil(7);
      expect(t.deliveries.map((d) => d.at)).toEqual([0, 0, 0, 1250, 1250, 1250, 2500]);
    });

    it("tells of a process whose transit differs from the fleet's (a storeConflict naming transit)", async () => {
      const name = uniqueName('transit-conflict');
      names.push(name);
      const options = { rate: '4/1s', strategy: 'sliding-window' } as const;
      const first = storeThrottler(backend(), name, { ...options, transit: 100 });
      const second = storeThrottler(backend(), name, { ...options, transit: 200 }, {}, first.clock);
      running.push(first, second);
      first.actor.send({ type: 'QUEUE', message: { type: 'job', n: 0 } });
      await first.runUntil(1);
      second.actor.send({ type: 'QUEUE', message: { type: 'job', n: 1 } });
      await second.quiet();
      const conflict = second.emitted.find((event) => event.type === 'storeConflict') as { error: Error } | undefined;
      expect(conflict?.error).toBeInstanceOf(StoreConflictError);
      expect(conflict?.error.message).toMatch(/^transit must be the same in every process sharing the Redis store/);
      expect(second.deliveries).toEqual([]);
    });

    it('restores a saved queue onto the store (restoreThrottler with store), which reserves it afresh', async () => {
      const name = uniqueName('restore');
      names.push(name);
      const first = storeThrottler(backend(), name, { rate: '2/1s', strategy: 'sliding-window' }, { grantGraceMs: 0 });
      running.push(first);
      first.actor.send({ type: 'SET_TARGET', target: undefined });
      first.actor.send({ type: 'QUEUE_BATCH', messages: burst(3) });
      await first.quiet();
      const saved = JSON.parse(JSON.stringify(first.actor.getPersistedSnapshot()));
      first.actor.stop();
      const received: number[] = [];
      const target = createActor(
        fromCallback<{ type: string; n: number }>(({ receive }) => receive((event) => received.push(event.n))),
      ).start();
      const { clock } = first;
      const restored = restoreThrottler(saved, { store: first.store, target, clock, now: () => clock.now() });
      for (let steps = 0; received.length < 3 && steps < 50; steps++) {
        // The restored throttler calls the store through the first one's, so first.quiet() waits for it.
        await first.quiet();
        const { wakeAt } = restored.getSnapshot().context;
        if (Number.isFinite(wakeAt)) clock.increment(Math.max(0, wakeAt - clock.now()));
      }
      // Nothing was reserved while the first had no target; restored, the queue goes at the rate.
      expect(received).toEqual([0, 1, 2]);
      expect(clock.now()).toBe(1000);
      restored.stop();
    });

    it('refuses what a store cannot share, naming the option, and a store that is not one', async () => {
      const store = makeStore(uniqueName('refuse'));
      const attempt = (input: Record<string, unknown>) => {
        const actor = createActor(throttlerMachine, { input: { rate: '1/1s', store, ...input } as never });
        expect(actor.getSnapshot().status).toBe('error');
        return (actor.getSnapshot().error as Error).message;
      };
      expect(attempt({ strategy: 'timer' })).toMatch(
        /^strategy must be "sliding-window" or "token-bucket" with a shared store/,
      );
      expect(attempt({ strategy: 'warming-up', warmup: '1s' })).toMatch(/^strategy must be/);
      // Per-channel ordering is shared too: one reservation line per channel or key (throttler-store-lines.test.ts).
      const perChannel = createActor(throttlerMachine, {
        input: { rate: '1/1s', strategy: 'sliding-window', ordering: 'per-channel', store } as never,
      });
      expect(perChannel.getSnapshot().status).toBe('active');
      expect(attempt({ strategy: 'sliding-window', countUntil: 'done' })).toMatch(/^countUntil must be/);
      expect(attempt({ strategy: 'sliding-window', store: { name: 'x' } })).toBe(
        'store must be a store from createRedisStore (xstate-throttler/redis) or createMemoryStore (xstate-throttler/store), got {"name":"x"}',
      );
      await store.close();
    });

    it('refuses TRY_ACQUIRE with a clear error in the reply, and keeps its queue', async () => {
      const t = throttler({ rate: '1/1s', strategy: 'sliding-window' }, { grantGraceMs: 0 });
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(2) });
      const reply: { waitMs?: number; error?: Error } = {};
      t.actor.send({ type: 'TRY_ACQUIRE', reply });
      expect(reply.error?.message).toMatch(/^TRY_ACQUIRE must be not sent to a throttler with a store/);
      await t.runUntil(2);
      expect(t.deliveries.map((d) => d.at)).toEqual([0, 1000]);
    });
  });
}
