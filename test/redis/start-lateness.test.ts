import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { redisForFile } from '../support/redis.js';
import { throughStoreCalls } from '../support/store-calls.js';
import { storeThrottler } from '../support/store-throttler.js';

/**
 * A fleet's start (issue 22 item 3): the first grants are due at once, so a process that learns
 * Redis' clock only from their reply judges them against that reply's whole round trip (which at a
 * start includes the script's text and a cold process). In virtual time: the store's test clock is
 * Redis' now, read as a call leaves; `lateBy` makes a script run that much later than its call left
 * (the call queued behind others), and moving the clock while it is out is the reply coming back.
 */
const file = redisForFile();
const RATE = { rate: '20/500ms', strategy: 'sliding-window' as const };

/** The store's script calls as they leave: each one's own last argument ('clock' for the calibration). */
function recordingCalls(redis: Redis, calls: string[]): Redis {
  return new Proxy(redis, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !property.startsWith('xthrottlerReserve') || typeof value !== 'function')
        return value;
      return (...args: unknown[]) => {
        calls.push(String(args.at(-1)));
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
}

/** Every store script call's reply handled `ms` later on the virtual clock than Redis ran it: a far Redis. */
function slowLink(redis: Redis, clock: SimulatedClock, ms: number): Redis {
  return throughStoreCalls(redis, (call) =>
    call().then((reply) => {
      clock.increment(ms);
      return reply;
    }),
  );
}

describe("a throttler's first grants on a store", () => {
  it('learns Redis clock before asking for them, so a first reply slow on the way out leaves them on time', async () => {
    const clock = new SimulatedClock();
    let lateBy = 0;
    const t = storeThrottler(file.redis, file.fresh('start'), RATE, { testClock: () => clock.now() + lateBy }, clock);
    await t.quiet();
    // The script ran 30 ms after the call left, and its reply came back 5 ms later.
    lateBy = 30;
    t.actor.send({ type: 'QUEUE_BATCH', messages: [0, 1, 2].map((n) => ({ message: { type: 'job', n } })) });
    await Promise.resolve();
    lateBy = 0;
    t.clock.increment(35);
    await t.runUntil(3);
    // Granted for Redis' 30, sent at 35, within the grace. Judged against the reply alone (Redis' clock
    // then known within 35 ms, more than the 20 ms grace), they were moved to 55 in a second call.
    expect(t.deliveries.map((d) => d.at)).toEqual([35, 35, 35]);
    t.actor.stop();
    await t.store.close();
  });

  // What is lost otherwise: with a reserve-ahead of the whole interval (0.1's default), b takes 520 at 20,
  // a's grants no longer fit anywhere and go at 1040. Every process sharing the name must set the same value.
  it('with the default reserve-ahead (3/4 of the interval), a holder up to a quarter interval late still moves its grants', async () => {
    const name = file.fresh('start');
    const input = { rate: '2/500ms', strategy: 'sliding-window' as const };
    const a = storeThrottler(file.redis, name, input);
    const b = storeThrottler(file.redis, name, input, {}, a.clock);
    await Promise.all([a.quiet(), b.quiet()]);
    const target = a.actor.getSnapshot().context.target;
    a.actor.send({ type: 'QUEUE_BATCH', messages: [0, 1].map((n) => ({ message: { type: 'job', n } })) });
    // Its grants (at 0) go unused until 40, past the grace: a process busy at the fleet's start.
    a.actor.send({ type: 'SET_TARGET', target: undefined });
    await a.quiet();
    a.clock.increment(20);
    // Another process asks at 20 for the next window (520): told to come back at 145.
    b.actor.send({ type: 'QUEUE_BATCH', messages: [0, 1].map((n) => ({ message: { type: 'job', n } })) });
    await b.quiet();
    a.clock.increment(20);
    a.actor.send({ type: 'SET_TARGET', target });
    await a.runUntil(2);
    await b.runUntil(2);
    expect(a.deliveries.map((d) => d.at)).toEqual([40, 40]);
    expect(b.deliveries.map((d) => d.at)).toEqual([560, 560]);
    expect(a.emitted.filter((event) => event.type === 'storeGrantsRewound')).toEqual([
      { type: 'storeGrantsRewound', given: 0, retimed: 2, reason: 'late', at: 40 },
    ]);
    for (const t of [a, b]) {
      t.actor.stop();
      await t.store.close();
    }
  });

  it('with a reserve-ahead of the whole interval, gives back a window that no longer fits, and says so once', async () => {
    const name = file.fresh('start');
    const input = { rate: '2/500ms', strategy: 'sliding-window' as const };
    const a = storeThrottler(file.redis, name, input, { maxReserveAheadMs: 500 });
    const b = storeThrottler(file.redis, name, input, { maxReserveAheadMs: 500 }, a.clock);
    await Promise.all([a.quiet(), b.quiet()]);
    const target = a.actor.getSnapshot().context.target;
    a.actor.send({ type: 'QUEUE_BATCH', messages: [0, 1].map((n) => ({ message: { type: 'job', n } })) });
    a.actor.send({ type: 'SET_TARGET', target: undefined });
    await a.quiet();
    a.clock.increment(20);
    b.actor.send({ type: 'QUEUE_BATCH', messages: [0, 1].map((n) => ({ message: { type: 'job', n } })) });
    await b.quiet();
    a.clock.increment(20);
    a.actor.send({ type: 'SET_TARGET', target });
    // a's grants no longer fit (b holds 520): given back at 40, asked for again behind b's.
    await a.quiet();
    await b.runUntil(2);
    await a.runUntil(2);
    expect(b.deliveries.map((d) => d.at)).toEqual([520, 520]);
    expect(a.deliveries.map((d) => d.at)).toEqual([1040, 1040]);
    expect(a.emitted.filter((event) => event.type === 'storeGrantsRewound')).toEqual([
      { type: 'storeGrantsRewound', given: 2, retimed: 0, reason: 'late', at: 40 },
    ]);
    for (const t of [a, b]) {
      t.actor.stop();
      await t.store.close();
    }
  });

  it('gives back a grant inside a pause, and says so once with the reason', async () => {
    const t = storeThrottler(
      file.redis,
      file.fresh('start'),
      { rate: '1/500ms', strategy: 'sliding-window' },
      {
        maxReserveAheadMs: 1000,
      },
    );
    await t.quiet();
    t.actor.send({ type: 'QUEUE_BATCH', messages: [0, 1].map((n) => ({ message: { type: 'job', n } })) });
    // One sent at 0, the other granted for 520 (within the reserve-ahead) and held.
    await t.quiet();
    t.clock.increment(10);
    t.actor.send({ type: 'PAUSE', duration: 2000 });
    await t.runUntil(2);
    expect(t.deliveries.map((d) => d.at)).toEqual([0, 2010]);
    expect(t.emitted.filter((event) => event.type === 'storeGrantsRewound')).toEqual([
      { type: 'storeGrantsRewound', given: 1, retimed: 0, reason: 'pause', at: 10 },
    ]);
    t.actor.stop();
    await t.store.close();
  });

  it('knows a link too slow for the grace before its first grants, and sends them as they arrive', async () => {
    const clock = new SimulatedClock();
    const t = storeThrottler(slowLink(file.redis, clock, 30), file.fresh('start'), RATE, {}, clock);
    await t.quiet();
    // Four calibration replies, each 30 ms: the widened grace is in use before anything is asked.
    expect(t.emitted.filter((event) => event.type === 'storeSlow')).toEqual([
      { type: 'storeSlow', roundTripMs: 30, graceMs: 50, at: 120 },
    ]);
    t.actor.send({ type: 'QUEUE_BATCH', messages: [0, 1].map((n) => ({ message: { type: 'job', n } })) });
    await t.runUntil(2);
    // Granted for Redis' 120, known only within 30 ms: sent as the reply arrives (one round trip after they
    // were queued), nothing moved or given back. Before, they went 140 ms after, moved until four replies were in.
    expect(t.deliveries.map((d) => d.at)).toEqual([150, 150]);
    expect(t.emitted.filter((event) => event.type === 'storeGrantsRewound')).toEqual([]);
    t.actor.stop();
    await t.store.close();
  });

  it('has the reserve script on its connection before it asks for grants (the text goes with the first call)', async () => {
    const calls: string[] = [];
    const t = storeThrottler(recordingCalls(file.redis, calls), file.fresh('start'), RATE);
    await t.quiet();
    expect(calls).toEqual(['clock']);
    t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 0 } });
    await t.runUntil(1);
    expect(calls.length).toBe(2);
    t.actor.stop();
    await t.store.close();
  });
});
