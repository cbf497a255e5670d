import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback } from 'xstate';
import { type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { MAX_TIMER_DELAY } from '../../src/machine/effects.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

function startThrottler(input: ThrottlerInput) {
  const actor = createActor(throttlerMachine, { input }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  return { actor, emitted };
}

describe('throttlerMachine', () => {
  it('keeps messages queued before a target is set, then delivers them at the rate', () => {
    const { actor } = startThrottler({ rate: '2/1s' });
    for (let n = 1; n <= 5; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.counts.queued).toBe(5);
    expect(pendingTimers()).toBe(0);

    advance(5_000);
    const target = createRecorder<Numbered>();
    actor.send({ type: 'SET_TARGET', target: target.ref });
    expect(actor.getSnapshot().value).toBe('active');
    advance(3_000);
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 5000],
      [2, 5000],
      [3, 6000],
      [4, 6000],
      [5, 7000],
    ]);
  });

  it('delivers the message object unchanged, so a sender can put its own replyTo inside', () => {
    const target = createRecorder();
    const replyTo = createRecorder();
    const { actor } = startThrottler({ rate: '1/1s', target: target.ref });
    const message = { type: 'fetch', url: '/a', replyTo: replyTo.ref };
    actor.send({ type: 'QUEUE', message });
    expect(target.messages()[0]).toBe(message);
  });

  it('unsetting the target goes idle with no timer and keeps the queue; a new target resumes without loss or duplicates', () => {
    const first = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/1s', target: first.ref });
    for (let n = 1; n <= 6; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    expect(first.messages().map((m) => m.n)).toEqual([1, 2]);

    actor.send({ type: 'SET_TARGET', target: undefined });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    advance(10_000);
    expect(first.received).toHaveLength(2);
    expect(actor.getSnapshot().context.counts.queued).toBe(4);

    const second = createRecorder<Numbered>();
    actor.send({ type: 'SET_TARGET', target: second.ref });
    advance(2_000);
    expect(second.received.map((r) => [r.message.n, r.at])).toEqual([
      [3, 10_000],
      [4, 10_000],
      [5, 11_000],
      [6, 11_000],
    ]);
  });

  it('switching targets while active sends the rest to the new target, still at the rate', () => {
    const first = createRecorder<Numbered>();
    const second = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '1/1s', target: first.ref });
    for (let n = 1; n <= 3; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    actor.send({ type: 'SET_TARGET', target: second.ref });
    advance(2_000);
    expect(first.received.map((r) => [r.message.n, r.at])).toEqual([[1, 0]]);
    expect(second.received.map((r) => [r.message.n, r.at])).toEqual([
      [2, 1000],
      [3, 2000],
    ]);
  });

  it('SET_RATE while active restarts the tick now, as in Akka, counting what the period cut short delivered', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '1/1s', target: target.ref });
    for (let n = 1; n <= 7; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    advance(500);
    actor.send({ type: 'SET_RATE', rate: '3/1s' });
    advance(2_000);
    // Message 1 went in the period the SET_RATE cut short: 2 of the 3 vouchers are left at 500.
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 0],
      [2, 500],
      [3, 500],
      [4, 1500],
      [5, 1500],
      [6, 1500],
      [7, 2500],
    ]);
  });

  it('goes idle as soon as the queue is empty, with no timer pending; the voucher period still holds the next message', () => {
    const target = createRecorder();
    const { actor, emitted } = startThrottler({ rate: '3/1s', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(1) });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    advance(300);
    actor.send({ type: 'QUEUE', message: msg(2) });
    actor.send({ type: 'QUEUE', message: msg(3) });
    actor.send({ type: 'QUEUE', message: msg(4) });
    // The period that began at 0 goes on: its last voucher went to message 3, message 4 waits for the tick.
    expect(target.times()).toEqual([0, 300, 300]);
    expect(actor.getSnapshot().value).toBe('active');
    expect(pendingTimers()).toBe(1);
    advance(700);
    expect(target.times()).toEqual([0, 300, 300, 1_000]);
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    // Message 1 was queued and went through active and back (its activation starts the period); 2 and 3
    // went straight through, inside the running period (an activation would have changed nothing); 4 had
    // to wait for the tick, in active.
    expect(emitted.map((e) => e.type)).toEqual([
      'queued',
      'activated',
      'delivered',
      'dequeued',
      'idled',
      'delivered',
      'delivered',
      'queued',
      'activated',
      'delivered',
      'dequeued',
      'idled',
    ]);
  });

  it('the sliding window goes idle as soon as the queue is empty', () => {
    const target = createRecorder();
    const { actor } = startThrottler({ rate: '3/1s', strategy: 'sliding-window', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(1) });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
  });

  it('keeps one timer however many messages wait', () => {
    const target = createRecorder();
    const { actor } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    for (let n = 0; n < 1000; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    expect(pendingTimers()).toBe(1);
    advance(10_500);
    expect(target.received).toHaveLength(11);
    expect(pendingTimers()).toBe(1);
  });

  it('a long interval (2/30d) neither fires early nor throws: the wait is armed in chunks below 2^31 ms', () => {
    const day = 86_400_000;
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/30d', strategy: 'sliding-window', target: target.ref });
    for (let n = 1; n <= 3; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    expect(target.received).toHaveLength(2);
    expect(30 * day).toBeGreaterThan(MAX_TIMER_DELAY);
    advance(MAX_TIMER_DELAY);
    expect(target.received).toHaveLength(2);
    expect(pendingTimers()).toBe(1);
    advance(30 * day - MAX_TIMER_DELAY - 1);
    expect(target.received).toHaveLength(2);
    advance(1);
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 0],
      [2, 0],
      [3, 30 * day],
    ]);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it('a long interval with the timer strategy ticks once per 30 days', () => {
    const day = 86_400_000;
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/30d', target: target.ref });
    for (let n = 1; n <= 3; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    advance(30 * day - 1);
    expect(target.received).toHaveLength(2);
    advance(1);
    expect(target.times()).toEqual([0, 0, 30 * day]);
  });

  it('a timer that fires early wakes, finds nothing due, and re-arms for the remainder', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({
      rate: '1/1s',
      strategy: 'sliding-window',
      target: target.ref,
      // The time source runs half a percent slower than the timers: every timer looks early.
      now: () => performance.now() * 0.995,
    });
    actor.send({ type: 'QUEUE', message: msg(1) });
    actor.send({ type: 'QUEUE', message: msg(2) });
    advance(1000);
    expect(target.received).toHaveLength(1);
    expect(pendingTimers()).toBe(1);
    advance(6);
    expect(target.received).toHaveLength(2);
  });

  it('CANCEL by a reused id takes out the message that now holds it', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'QUEUE', message: msg(1), id: 'x' });
    actor.send({ type: 'QUEUE', message: msg(2), id: 'x' });
    actor.send({ type: 'QUEUE', message: msg(3) });
    advance(1_000);
    // Message 1 went; the id now names message 2 alone.
    actor.send({ type: 'CANCEL', id: 'x' });
    advance(5_000);
    expect(target.messages().map((m) => m.n)).toEqual([0, 1, 3]);
    expect(
      emitted.filter((e) => e.type === 'dropped').map((e) => (e.type === 'dropped' ? [e.message, e.reason] : [])),
    ).toEqual([[msg(2), 'cancelled']]);
  });

  it('emits delivered events with the message, time and wait', () => {
    const target = createRecorder();
    const { actor, emitted } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(1) });
    actor.send({ type: 'QUEUE', message: msg(2) });
    advance(1000);
    const delivered = emitted.filter((e) => e.type === 'delivered');
    expect(delivered).toEqual([
      { type: 'delivered', message: msg(1), channel: undefined, cost: 1, at: 0, queuedAt: 0 },
      { type: 'delivered', message: msg(2), channel: undefined, cost: 1, at: 1000, queuedAt: 0 },
    ]);
  });

  it('QUEUE_BATCH queues its entries in order, each checked like a QUEUE, and delivers at the rate', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({
      rate: '2/1s',
      strategy: 'sliding-window',
      channels: { slow: '1/1s' },
      target: target.ref,
    });
    actor.send({
      type: 'QUEUE_BATCH',
      messages: [
        { message: msg(1) },
        { message: msg(2), channel: 'slow' },
        { message: msg(3), cost: 0 },
        { message: msg(4), channel: 'slow' },
        { message: msg(5), channel: 'nope' },
        { message: msg(6) },
      ],
    });
    advance(2_000);
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 0],
      [2, 0],
      [4, 1000],
      [6, 1000],
    ]);
    expect(
      emitted.flatMap((e) => (e.type === 'rejected' ? [[(e.message as Numbered).n, e.error.message]] : [])),
    ).toEqual([
      [3, 'cost must be a positive integer, got 0'],
      [5, 'channel must be one of "slow", got "nope"'],
    ]);
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
  });

  it('QUEUE_BATCH with no target keeps every entry; with capacity, entries go at once or overflow as QUEUE events would', () => {
    const { actor } = startThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: msg(1) }, { message: msg(2) }] });
    expect(actor.getSnapshot()).toMatchObject({ value: 'idle', context: { counts: { queued: 2 } } });

    const target = createRecorder<Numbered>();
    const bounded = startThrottler({ rate: '2/1s', strategy: 'sliding-window', capacity: 2, target: target.ref });
    bounded.actor.send({ type: 'QUEUE_BATCH', messages: [1, 2, 3, 4, 5].map((n) => ({ message: msg(n) })) });
    // 1 and 2 go at once without taking room in the queue; 3 and 4 fill it; 5 overflows.
    expect(target.messages().map((m) => m.n)).toEqual([1, 2]);
    expect(bounded.actor.getSnapshot().context.counts).toMatchObject({ delivered: 2, queued: 2, rejected: 1 });
    advance(1000);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3, 4]);
  });

  it("QUEUE_BATCH: every entry's queuedAt is when the batch arrived, even when deliveries take time", () => {
    let time = 0;
    // A target that takes 100 ms of the throttler's clock per message.
    const target = createActor(
      fromCallback<Numbered>(({ receive }) =>
        receive(() => {
          time += 100;
        }),
      ),
    ).start();
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/10s', strategy: 'sliding-window', target, now: () => time },
    }).start();
    const delivered: Array<[number, number, number]> = [];
    actor.on('delivered', (event) => delivered.push([(event.message as Numbered).n, event.queuedAt, event.at]));
    actor.send({ type: 'QUEUE_BATCH', messages: [1, 2, 3].map((n) => ({ message: msg(n) })) });
    time = 20_000;
    advance(20_000);
    expect(delivered).toEqual([
      [1, 0, 100],
      [2, 0, 200],
      [3, 0, 20_100],
    ]);
    actor.stop();
  });

  it.each([
    ['QUEUE', { type: 'QUEUE', message: msg(1) }],
    ['QUEUE_BATCH', { type: 'QUEUE_BATCH', messages: [{ message: msg(1) }] }],
  ] as const)('a %s to a stopped target in idle lets the target go without passing through active', (_name, event) => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '5/1s', strategy: 'sliding-window', target: target.ref });
    target.ref.stop();
    actor.send(event);
    // Queued (it stays, at the head), then the target let go.
    expect(emitted.map((e) => e.type)).toEqual(['queued', 'targetLost']);
    expect(actor.getSnapshot()).toMatchObject({ value: 'idle', context: { target: undefined, counts: { queued: 1 } } });
    expect(pendingTimers()).toBe(0);
  });

  it('snapshots change with every queued message (the queue is mutated in place, the version is not)', () => {
    const { actor } = startThrottler({ rate: '1/1s' });
    const before = actor.getSnapshot();
    actor.send({ type: 'QUEUE', message: msg(1) });
    const after = actor.getSnapshot();
    expect(after).not.toBe(before);
    expect(after.context.version).toBeGreaterThan(before.context.version);
    expect(after.context.counts).toEqual({ queued: 1, delivered: 0, dropped: 0, rejected: 0 });
    expect(before.context.counts.queued).toBe(0);
  });

  it('can be invoked inside a parent machine, with the parent as target', () => {
    const received: Array<[number, number]> = [];
    const parent = createMachine({
      types: {} as { events: Numbered },
      invoke: { id: 'throttler', src: throttlerMachine, input: ({ self }) => ({ rate: '1/1s', target: self }) },
      on: {
        msg: { actions: ({ event }) => received.push([event.n, performance.now()]) },
      },
    });
    const actor = createActor(parent).start();
    const throttler = actor.getSnapshot().children.throttler;
    for (let n = 1; n <= 3; n++) throttler?.send({ type: 'QUEUE', message: msg(n) });
    advance(2000);
    expect(received).toEqual([
      [1, 0],
      [2, 1000],
      [3, 2000],
    ]);
  });
});

describe('invalid input', () => {
  const cases: Array<[string, unknown, string]> = [
    ['limit 0', { rate: '0/1s' }, 'rate.limit must be a positive integer, got "0"'],
    ['negative limit', { rate: { limit: -1, interval: 1000 } }, 'rate.limit must be a positive integer, got -1'],
    ['NaN limit', { rate: { limit: Number.NaN, interval: 1000 } }, 'rate.limit must be a positive integer, got NaN'],
    ['non-integer limit', { rate: { limit: 1.5, interval: 1000 } }, 'rate.limit must be a positive integer, got 1.5'],
    [
      'Infinity interval',
      { rate: { limit: 1, interval: Number.POSITIVE_INFINITY } },
      'rate.interval must be a positive, finite duration in milliseconds, got Infinity',
    ],
    [
      'unparsable',
      { rate: 'fast' },
      'rate must be a rate such as "10/1s", "100/1m" or { limit, interval }, got "fast"',
    ],
    ['no rate', {}, 'rate must be a rate such as "10/1s" (it is required), got undefined'],
    [
      'unknown strategy',
      { rate: '1/s', strategy: 'leaky' },
      'strategy must be one of "timer", "sliding-window", "token-bucket", "warming-up", got "leaky"',
    ],
  ];

  it.each(cases)(
    '%s: the actor is created in error status with a message naming the option and value',
    (_, input, message) => {
      const actor = createActor(throttlerMachine, { input: input as never });
      const snapshot = actor.getSnapshot();
      expect(snapshot.status).toBe('error');
      expect((snapshot.error as Error).message).toBe(message);
      expect((snapshot.error as Error).name).toBe('ThrottlerOptionError');
    },
  );

  it('SET_RATE with an invalid rate emits invalidEvent and leaves the running actor as it was', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '1/1s', target: target.ref });
    for (let n = 1; n <= 3; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    actor.send({ type: 'SET_RATE', rate: { limit: 0, interval: 1000 } });
    const invalid = emitted.find((e) => e.type === 'invalidEvent');
    expect(invalid && 'error' in invalid ? invalid.error.message : '').toBe(
      'rate.limit must be a positive integer, got 0',
    );
    expect(actor.getSnapshot().status).toBe('active');
    advance(2000);
    expect(target.times()).toEqual([0, 1000, 2000]);
  });

  it('a QUEUE with an invalid cost is rejected with an event and the queue is unharmed', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '2/1s', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(1), cost: 3 });
    actor.send({ type: 'QUEUE', message: msg(2), cost: 0 });
    actor.send({ type: 'QUEUE', message: msg(3), cost: 2 });
    const rejected = emitted.filter((e) => e.type === 'rejected');
    expect(rejected.map((e) => (e.type === 'rejected' ? [e.message, e.reason, e.error.message] : []))).toEqual([
      [msg(1), 'invalid', 'cost must be at most 2 (the smallest limit that applies; it could never be sent), got 3'],
      [msg(2), 'invalid', 'cost must be a positive integer, got 0'],
    ]);
    expect(target.messages()).toEqual([msg(3)]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 1, dropped: 0, rejected: 2 });
  });

  it('SET_TARGET with something that is not an actor emits invalidEvent and keeps the old target', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '1/1s', target: target.ref });
    actor.send({ type: 'SET_TARGET', target: { id: 'nope' } as never });
    actor.send({ type: 'QUEUE', message: msg(1) });
    expect(target.messages()).toEqual([msg(1)]);
    expect(emitted.some((e) => e.type === 'invalidEvent')).toBe(true);
  });
});
