import { describe, expect, it } from 'vitest';
import { overfullWindows } from '../support/oracle.js';
import { uniqueName } from '../support/redis.js';
import { type StoreBackend, settle, stoppedAfterEach, storeThrottler } from '../support/store-throttler.js';

/**
 * Priorities and deadlines with a store, in virtual time, for every backend. The store
 * reserves in arrival order; a message of higher priority, once granted, sends on the earliest
 * grant of its channel and cost and the message it took it from takes its own: nothing waits for
 * a stale grant. A message past its deadline gives its grant back for the fleet.
 */
export function describeStorePriorities(label: string, backend: () => StoreBackend, names: string[] = []): void {
  const running = stoppedAfterEach();

  function throttler(
    name: string,
    ...args: Parameters<typeof storeThrottler> extends [unknown, unknown, ...infer Rest] ? Rest : never
  ) {
    names.push(name);
    const created = storeThrottler(backend(), name, ...args);
    running.push(created);
    return created;
  }

  /** Waits in real time (Redis answering), never moving virtual time, until `done`. */
  async function until(done: () => boolean, realMs = 10_000): Promise<void> {
    const giveUpAt = performance.now() + realMs;
    while (!done() && performance.now() < giveUpAt) await settle(5);
    await settle();
  }

  const burst = (n: number) => Array.from({ length: n }, (_, i) => ({ message: { type: 'job', n: i } }));

  describe(`a throttler with ${label}, with priorities and deadlines`, () => {
    it('sends a later message of higher priority first, on the earliest grant of its kind, and every other in order after it', async () => {
      const t = throttler(uniqueName('prio'), { rate: '2/1s', strategy: 'sliding-window' }, { grantGraceMs: 0 });
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(6) });
      // Granted in arrival order: 0 and 1 went at 0; 2, 3 hold grants at 1000, 4, 5 (as far ahead as the store grants) later.
      await until(() => t.deliveries.length === 2);
      t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 9 }, priority: 9 });
      await t.runUntil(7);
      expect(t.deliveries.map((d) => [d.n, d.at])).toEqual([
        [0, 0],
        [1, 0],
        [9, 1000],
        [2, 1000],
        [3, 2000],
        [4, 2000],
        [5, 3000],
      ]);
      expect(overfullWindows({ overall: [{ limit: 2, interval: 1000 }], channels: {} }, t.deliveries)).toEqual([]);
    });

    it('swaps only within a channel and cost: a head of another kind gets a grant of its own, asked for first', async () => {
      const t = throttler(
        uniqueName('prio-kinds'),
        { rate: '4/1s', strategy: 'sliding-window', channels: { a: '2/1s', b: '2/1s' } },
        // Reserving a whole window ahead (the default is 3/4 of the interval).
        { grantGraceMs: 0, maxReserveAheadMs: 1000 },
      );
      t.actor.send({
        type: 'QUEUE_BATCH',
        messages: [0, 1, 2, 3].map((n) => ({ message: { type: 'job', n }, channel: 'a' })),
      });
      await until(() => t.deliveries.length === 2);
      t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 8 }, channel: 'b', priority: 9 });
      t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 9 }, channel: 'a', priority: 9 });
      await t.runUntil(6);
      const deliveries = t.deliveries.map((d) => [d.n, d.at]);
      // 8 (channel b) has nothing of its kind to take: it is asked for first and goes at once; 9 takes 2's slot at 1000.
      expect(deliveries).toEqual([
        [0, 0],
        [1, 0],
        [8, 0],
        [9, 1000],
        [2, 1000],
        [3, 2000],
      ]);
      const config = { overall: [{ limit: 4, interval: 1000 }], channels: { a: [{ limit: 2, interval: 1000 }] } };
      expect(overfullWindows(config, t.deliveries)).toEqual([]);
    });

    it('a head of another cost, with nothing of its kind to take: every grant goes back and the head is asked for first', async () => {
      // The store grants 1 s ahead at most: the grants of 2 and 3 fill that, and 9 (cost 2) could never be granted behind them.
      const t = throttler(
        uniqueName('prio-cost'),
        { rate: '2/1s', strategy: 'sliding-window' },
        { grantGraceMs: 0, maxReserveAheadMs: 1000 },
      );
      t.actor.send({ type: 'QUEUE_BATCH', messages: burst(4) });
      await until(() => t.deliveries.length === 2);
      t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 9 }, cost: 2, priority: 9 });
      await t.runUntil(5);
      expect(t.deliveries.map((d) => [d.n, d.at])).toEqual([
        [0, 0],
        [1, 0],
        [9, 1000],
        [2, 2000],
        [3, 2000],
      ]);
      expect(overfullWindows({ overall: [{ limit: 2, interval: 1000 }], channels: {} }, t.deliveries)).toEqual([]);
    });

    it('drops a message at its deadline and gives its grant back: another throttler of the fleet gets the slot', async () => {
      const name = uniqueName('deadline');
      // Reserving a whole window ahead (the default is 3/4 of the interval).
      const ahead = { grantGraceMs: 0, maxReserveAheadMs: 1000 };
      const a = throttler(name, { rate: '1/1s', strategy: 'sliding-window' }, ahead);
      const b = throttler(name, { rate: '1/1s', strategy: 'sliding-window' }, ahead, a.clock);
      a.actor.send({
        type: 'QUEUE_BATCH',
        messages: [{ message: { type: 'job', n: 0 } }, { message: { type: 'job', n: 1 }, maxWait: 500 }],
      });
      await until(() => a.deliveries.length === 1 && a.actor.getSnapshot().context.wakeAt === 500);
      expect(a.deliveries.map((d) => [d.n, d.at])).toEqual([[0, 0]]);
      // Message 1 holds the grant at 1000; the one timer wakes for its deadline first.
      expect(a.actor.getSnapshot().context.wakeAt).toBe(500);
      await a.step();
      expect(a.emitted.filter((e) => e.type === 'dropped').map((e) => e.type === 'dropped' && e.reason)).toEqual([
        'expired',
      ]);
      // The expired message's grant is given back (a release call) before the clock moves.
      await a.quiet();
      a.clock.increment(100);
      b.actor.send({ type: 'QUEUE', message: { type: 'job', n: 7 } });
      await b.runUntil(1);
      // The slot at 1000 that message 1 held went back to the store: b's message takes it.
      expect(b.deliveries.map((d) => [d.n, d.at])).toEqual([[7, 1000]]);
      expect(a.deliveries.map((d) => [d.n, d.at])).toEqual([[0, 0]]);
    });
  });
}
