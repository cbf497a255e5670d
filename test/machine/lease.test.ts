import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { Lease } from '../../src/engine/clearance/lease.js';
import { restoreThrottler, type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { leaseEvent, OWN_EVENT } from '../../src/machine/own-events.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * LEASE: permits valid now for a sender that starts the work itself (the promise
 * API's `schedule` while nothing waits). The machine decides how many; what was
 * spent is recorded when the lease ends, or before any other event is handled.
 * LEASE and LEASE_END are the machine's own events: sent here with the mark the
 * promise API sets (own-events.ts); without it they are refused (hostile-events.test.ts).
 */
const marked = (event: unknown): unknown => {
  const { type } = event as { type?: unknown };
  return type === 'LEASE' || type === 'LEASE_END' ? { ...(event as object), [OWN_EVENT]: true } : event;
};

function start(input: Partial<ThrottlerInput> = {}) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: { rate: '3/1s', strategy: 'sliding-window', target: target.ref, ...input },
  }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('invalidEvent', (event) => emitted.push(event));
  const send = (event: unknown) => actor.send(marked(event) as never);
  const lease = (want: number): Lease => {
    const reply = { granted: -1, spent: -1 };
    send({ type: 'LEASE', want, lease: reply });
    return reply;
  };
  const refused = () => emitted.flatMap((event) => (event.type === 'invalidEvent' ? [event.error.message] : []));
  const counts = () => actor.getSnapshot().context.counts;
  /** What a TRY_ACQUIRE says now: 0 (and the permit taken) or the ms until one may be free. */
  const tryAcquire = () => {
    const reply: { waitMs?: number } = {};
    send({ type: 'TRY_ACQUIRE', reply });
    return reply.waitMs;
  };
  return { actor, target, send, lease, refused, counts, tryAcquire };
}

describe('LEASE: permits valid now, recorded when the lease ends', () => {
  it('grants what the window allows, at most what was asked for; what was spent counts as delivered', () => {
    const { lease, send, counts } = start();
    const first = lease(5);
    expect(first.granted).toBe(3);
    first.spent = 2;
    send({ type: 'LEASE_END' });
    expect(counts().delivered).toBe(2);
    // The unspent permit was never recorded: it is still there.
    expect(lease(5).granted).toBe(1);
    expect(lease(1).granted).toBe(1);
  });

  it('spent permits hold the window like deliveries: the next permit comes an interval after the end', () => {
    const { lease, send, tryAcquire } = start({ rate: '1/1s' });
    const granted = lease(1);
    granted.spent = 1;
    // Recorded when it ends (never earlier than the starts it counts): here 400 ms after the grant.
    advance(400);
    send({ type: 'LEASE_END' });
    advance(600);
    // An interval after the grant the slot is still held: it counts from the end, 400 ms on.
    expect(tryAcquire()).toBe(400);
    advance(400);
    expect(tryAcquire()).toBe(0);
  });

  it('any other event ends an open lease first: nothing else is granted from permits already spent', () => {
    const { lease, target, send, tryAcquire, counts } = start();
    const open = lease(3);
    open.spent = 3;
    expect(tryAcquire()).toBe(1000);
    expect(counts().delivered).toBe(3);
    send({ type: 'QUEUE', message: msg(1) });
    expect(target.received).toHaveLength(0);
    // The lease is closed: the holder cannot spend from it any more.
    expect(open.granted).toBe(0);
    advance(1000);
    expect(target.received).toHaveLength(1);
  });

  it('a QUEUE while a spent lease is open waits: it does not pass straight through', () => {
    const { lease, target, send } = start({ rate: '2/1s' });
    const open = lease(2);
    open.spent = 2;
    send({ type: 'QUEUE', message: msg(1) });
    expect(target.received).toHaveLength(0);
    advance(999);
    expect(target.received).toHaveLength(0);
    advance(1);
    expect(target.times()).toEqual([1000]);
  });

  it('grants nothing while a message waits, so that nothing overtakes the queue', () => {
    const { lease, send } = start({ target: undefined });
    send({ type: 'QUEUE', message: msg(1) });
    expect(lease(3).granted).toBe(0);
  });

  it('grants nothing paused, with deliveries tracked in flight, or for strategies whose cost is not a count', () => {
    const paused = start();
    paused.send({ type: 'PAUSE' });
    expect(paused.lease(3).granted).toBe(0);
    paused.send({ type: 'RESUME' });
    expect(paused.lease(3).granted).toBe(3);
    expect(start({ countUntil: 'done' }).lease(3).granted).toBe(0);
    expect(start({ maxConcurrent: 10 }).lease(3).granted).toBe(0);
    for (const strategy of ['token-bucket', 'timer'] as const) expect(start({ strategy }).lease(3).granted).toBe(0);
    expect(start({ strategy: 'warming-up', warmup: 1000 }).lease(3).granted).toBe(0);
  });

  it('grants nothing while someone listens to delivered: each delivery is heard with its message', () => {
    const { actor, lease } = start();
    const subscription = actor.on('delivered', () => {});
    expect(lease(3).granted).toBe(0);
    subscription.unsubscribe();
    expect(lease(3).granted).toBe(3);
  });

  it('a lease with several rates grants what the tightest allows now', () => {
    const { lease, send } = start({ rate: ['5/1s', '2/100ms'] });
    const first = lease(10);
    expect(first.granted).toBe(2);
    first.spent = 2;
    send({ type: 'LEASE_END' });
    advance(100);
    expect(lease(10).granted).toBe(2);
  });

  it('hostile LEASE events are refused by name and take nothing', () => {
    const { send, refused, lease, counts } = start();
    send({ type: 'LEASE', want: 3, lease: null });
    send({ type: 'LEASE', want: 3, lease: Object.freeze({ granted: 0, spent: 0 }) });
    const reply = { granted: 7, spent: 0 };
    send({ type: 'LEASE', want: 0, lease: reply });
    expect(reply.granted).toBe(0);
    send({ type: 'LEASE', want: 1.5, lease: reply });
    send({ type: 'LEASE', want: '3', lease: reply });
    expect(refused()).toEqual([
      'lease must be a writable object that receives { granted }, got null',
      'lease must be a writable object that receives { granted }, got {"granted":0,"spent":0}',
      'want must be a positive integer, got 0',
      'want must be a positive integer, got 1.5',
      'want must be a positive integer, got "3"',
    ]);
    expect(counts().delivered).toBe(0);
    expect(lease(3).granted).toBe(3);
  });

  it('a spent count the holder damaged counts as the whole lease: never fewer than may have started', () => {
    for (const damaged of [-1, 4, Number.NaN, 1.5, '2', undefined]) {
      const { lease, send, counts, tryAcquire } = start();
      const open = lease(3);
      (open as { spent: unknown }).spent = damaged;
      send({ type: 'LEASE_END' });
      expect(counts().delivered).toBe(3);
      expect(tryAcquire()).toBe(1000);
    }
  });

  it('a snapshot saved while a lease is open holds what it spent', () => {
    const { actor, lease } = start({ target: undefined });
    const open = lease(3);
    open.spent = 2;
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    const restored = restoreThrottler(saved, {});
    const reply = { granted: -1, spent: 0 };
    restored.send(leaseEvent(3, reply) as never);
    expect(reply.granted).toBe(1);
    restored.stop();
  });

  it('LEASE_END with no lease open changes nothing', () => {
    const { send, counts, refused, lease } = start();
    send({ type: 'LEASE_END' });
    send({ type: 'LEASE_END' });
    expect(refused()).toEqual([]);
    expect(counts().delivered).toBe(0);
    expect(lease(3).granted).toBe(3);
  });
});
