import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, createMachine } from 'xstate';
import { type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { leaseEvent } from '../../src/machine/own-events.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * Events as any sender could send them, whatever the types say: a parsed
 * request, another actor, a typo. Each bad one is reported (`invalidEvent`, or
 * `rejected` for a message), the actor keeps running with its queue intact, and
 * the next good message is delivered.
 */
function startThrottler(input: ThrottlerInput) {
  const actor = createActor(throttlerMachine, { input }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  const send = (event: unknown) => actor.send(event as never);
  return { actor, emitted, send };
}

const ofType = <T extends ThrottlerEmitted['type']>(emitted: ThrottlerEmitted[], type: T) =>
  emitted.filter((event): event is Extract<ThrottlerEmitted, { type: T }> => event.type === type);

const errors = (emitted: ThrottlerEmitted[], type: 'invalidEvent' | 'rejected') =>
  ofType(emitted, type).map((event) => event.error.message);

/** One message waits (the rate is spent), so "the queue intact" has something to mean. */
function withOneWaiting(extra: Partial<ThrottlerInput> = {}) {
  const target = createRecorder<Numbered>();
  const started = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref, ...extra });
  started.send({ type: 'QUEUE', message: msg(1) });
  started.send({ type: 'QUEUE', message: msg(2) });
  expect(started.actor.getSnapshot().context.counts.queued).toBe(1);
  return { ...started, target };
}

/** Everything still works: the waiting message and the next good one are delivered at the rate. */
function expectStillWorking(started: ReturnType<typeof withOneWaiting>): void {
  const { actor, send, target } = started;
  expect(actor.getSnapshot().status).toBe('active');
  send({ type: 'QUEUE', message: msg(3) });
  advance(2_000);
  expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3]);
  expect(target.times()).toEqual([0, 1_000, 2_000]);
}

describe('hostile events: reported, never fatal, the queue intact', () => {
  it.each([
    [
      'no messages',
      { type: 'QUEUE_BATCH' },
      'messages must be an array of { message, channel?, cost?, id? }, got undefined',
    ],
    ['messages null', { type: 'QUEUE_BATCH', messages: null }, 'messages must be an array'],
    ['messages a string', { type: 'QUEUE_BATCH', messages: 'abc' }, 'messages must be an array'],
    ['messages an object', { type: 'QUEUE_BATCH', messages: { length: 2 } }, 'messages must be an array'],
  ])('QUEUE_BATCH with %s: invalidEvent', (_name, event, message) => {
    const started = withOneWaiting();
    started.send(event);
    expect(errors(started.emitted, 'invalidEvent')).toEqual([expect.stringContaining(message)]);
    expectStillWorking(started);
  });

  it('QUEUE_BATCH with null and non-object entries: each is rejected, naming its place; the rest go', () => {
    const target = createRecorder<Numbered>();
    const started = { target, ...startThrottler({ rate: '5/1s', strategy: 'sliding-window', target: target.ref }) };
    for (const n of [1, 2]) started.send({ type: 'QUEUE', message: msg(n) });
    started.send({ type: 'QUEUE_BATCH', messages: [null, { message: msg(10) }, 7, undefined, { message: msg(11) }] });
    expect(errors(started.emitted, 'rejected')).toEqual([
      'messages[0] must be an object { message, channel?, cost?, id? }, got null',
      'messages[2] must be an object { message, channel?, cost?, id? }, got 7',
      'messages[3] must be an object { message, channel?, cost?, id? }, got undefined',
    ]);
    expect(started.target.messages().map((m) => m.n)).toEqual([1, 2, 10, 11]);
    expect(started.actor.getSnapshot().context.counts).toMatchObject({ delivered: 4, rejected: 3, queued: 0 });
  });

  it.each([
    ['without a message', {}, 'undefined'],
    ['with null', { message: null }, 'null'],
    ['with a string', { message: 'hello' }, '"hello"'],
    ['with an object without a type', { message: { n: 1 } }, '{"n":1}'],
    ['with a numeric type', { message: { type: 42 } }, '{"type":42}'],
  ])('QUEUE %s is rejected as invalid, never counted as delivered', (_name, fields, shown) => {
    const started = withOneWaiting();
    started.send({ type: 'QUEUE', ...fields });
    expect(errors(started.emitted, 'rejected')).toEqual([
      `message must be an event object with a string type, e.g. { type: "call" }, got ${shown}`,
    ]);
    expect(started.actor.getSnapshot().context.counts).toMatchObject({ delivered: 1, queued: 1, rejected: 1 });
    expectStillWorking(started);
  });

  it('a QUEUE without a message in idle (the straight-through path) is rejected too, and an XState target is unharmed', () => {
    const received: unknown[] = [];
    const machineTarget = createActor(
      createMachine({ on: { '*': { actions: ({ event }) => received.push(event) } } }),
    ).start();
    const { actor, emitted, send } = startThrottler({
      rate: '5/1s',
      strategy: 'sliding-window',
      target: machineTarget,
    });
    send({ type: 'QUEUE' });
    send({ type: 'QUEUE', message: { type: 'ok' } });
    expect(errors(emitted, 'rejected')).toHaveLength(1);
    expect(received).toEqual([{ type: 'ok' }]);
    expect(machineTarget.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().context.counts).toMatchObject({ delivered: 1, rejected: 1 });
  });

  it.each([
    ['without a reply', { type: 'TRY_ACQUIRE' }, 'undefined'],
    ['with a null reply', { type: 'TRY_ACQUIRE', reply: null }, 'null'],
    ['with a frozen reply', { type: 'TRY_ACQUIRE', reply: Object.freeze({}) }, '{}'],
  ])('TRY_ACQUIRE %s: invalidEvent, and no permit is taken for nobody', (_name, event, shown) => {
    const target = createRecorder<Numbered>();
    const { actor, emitted, send } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    send(event);
    expect(errors(emitted, 'invalidEvent')).toEqual([
      `reply must be a writable object that receives { waitMs } or { error }, got ${shown}`,
    ]);
    send({ type: 'QUEUE', message: msg(1) });
    expect(target.times()).toEqual([0]);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it.each([
    ['an object with only a send function', { send: () => {} }],
    [
      'an object with send and getSnapshot but no session',
      { send: () => {}, getSnapshot: () => ({ status: 'active' }) },
    ],
    ['a function', () => {}],
    ['a number', 42],
  ])('SET_TARGET with %s is refused; the first delivery cannot crash on it', (_name, target) => {
    const started = withOneWaiting();
    started.send({ type: 'SET_TARGET', target });
    expect(errors(started.emitted, 'invalidEvent')).toEqual([
      expect.stringMatching(/^target must be an actor ref or undefined, got /),
    ]);
    expectStillWorking(started);
  });

  it('a target whose snapshot cannot be read counts as lost: the message stays queued', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted, send } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    const broken = createActor(createMachine({})).start() as AnyActorRef;
    broken.getSnapshot = () => {
      throw new Error('no snapshot');
    };
    send({ type: 'QUEUE', message: msg(1) });
    send({ type: 'QUEUE', message: msg(2) });
    send({ type: 'SET_TARGET', target: broken });
    advance(1_000);
    expect(ofType(emitted, 'targetLost').map((event) => (event.message as Numbered).n)).toEqual([2]);
    expect(actor.getSnapshot().context.counts.queued).toBe(1);
    send({ type: 'SET_TARGET', target: target.ref });
    expect(target.messages().map((m) => m.n)).toEqual([1, 2]);
  });

  it.each(['QUEUEE', 'queue', 'WAKEUP', 'xstate.foo', ''])(
    'an unknown event type (%j) is reported in both states',
    (type) => {
      const started = withOneWaiting();
      started.send({ type });
      started.actor.send({ type: 'SET_TARGET', target: undefined });
      started.send({ type });
      expect(errors(started.emitted, 'invalidEvent')).toEqual([
        expect.stringContaining(`type must be one of QUEUE, QUEUE_BATCH, SET_TARGET`),
        expect.stringContaining(`got ${JSON.stringify(type)}`),
      ]);
      started.actor.send({ type: 'SET_TARGET', target: started.target.ref });
      expectStillWorking(started);
    },
  );

  /** The machine's own event types (own-events.ts), as a user could send them: none of them is a user's event. */
  const ownEvents = [
    { type: 'WAKE' },
    { type: 'WORK_WAITING' },
    { type: 'DRAINED' },
    { type: 'CLEARANCE' },
    { type: 'STORE_STATUS', up: false, error: new Error('forged') },
    { type: 'LEASE', want: 5, lease: { granted: -1, spent: 0 } },
    { type: 'LEASE_END' },
  ];

  it('the machine’s own event types sent from outside (active): refused as unknown, nothing changes', () => {
    const started = withOneWaiting();
    const before = started.actor.getSnapshot().context;
    const heardBefore = started.emitted.length;
    for (const event of ownEvents) started.send(event);
    expect(errors(started.emitted, 'invalidEvent')).toEqual(
      ownEvents.map(({ type }) =>
        expect.stringMatching(new RegExp(`^type must be one of QUEUE, .*TRY_ACQUIRE, got "${type}"$`)),
      ),
    );
    expect(started.emitted.slice(heardBefore).map((event) => event.type)).toEqual(ownEvents.map(() => 'invalidEvent'));
    expect(ownEvents[5]).toMatchObject({ lease: { granted: -1 } });
    const after = started.actor.getSnapshot().context;
    expect([after.counts, after.wakeAt, after.target]).toEqual([before.counts, before.wakeAt, before.target]);
    expect(pendingTimers()).toBe(1);
    expectStillWorking(started);
  });

  it('the machine’s own event types sent from outside (idle, nothing waiting): refused, still idle', () => {
    const target = createRecorder<Numbered>();
    const started = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    for (const event of ownEvents) started.send(event);
    expect(errors(started.emitted, 'invalidEvent')).toHaveLength(ownEvents.length);
    expect(started.actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    started.send({ type: 'QUEUE', message: msg(1) });
    expect(target.messages().map((m) => m.n)).toEqual([1]);
  });

  it('a WAKE sent from outside leaves no orphaned timer: after stop() no timer is pending', () => {
    const started = withOneWaiting();
    started.send({ type: 'WAKE' });
    started.send({ type: 'WAKE' });
    expect(pendingTimers()).toBe(1);
    started.actor.stop();
    expect(pendingTimers()).toBe(0);
  });

  it('PAUSE with both until and duration is refused: which one was meant is unknowable', () => {
    const started = withOneWaiting();
    started.send({ type: 'PAUSE', until: 5_000, duration: 10 });
    expect(errors(started.emitted, 'invalidEvent')).toEqual([
      'until must be left out when a duration is given (one or the other), got 5000',
    ]);
    expectStillWorking(started);
  });
});

describe('a time source that misbehaves: time never runs backwards, never jumps on a bad reading', () => {
  it.each([
    ['NaN', Number.NaN, 'NaN'],
    ['a string', '12', '"12"'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
    ['undefined', undefined, 'undefined'],
  ])(
    'a reading of %s is reported; nothing goes over the limit; the next good message is delivered',
    (_name, bad, shown) => {
      let broken: { reading: unknown } | undefined;
      const target = createRecorder<Numbered>();
      const delivered: number[] = [];
      const { actor, emitted, send } = startThrottler({
        rate: '2/1s',
        strategy: 'sliding-window',
        target: target.ref,
        now: () => (broken === undefined ? performance.now() : broken.reading) as number,
      });
      actor.on('delivered', (event) => delivered.push(event.at));
      send({ type: 'QUEUE', message: msg(1) });
      send({ type: 'QUEUE', message: msg(2) });
      advance(300);
      broken = { reading: bad };
      send({ type: 'QUEUE', message: msg(3) });
      send({ type: 'QUEUE', message: msg(4) });
      // Said once while the source stays bad; time stood still at 300, so nothing went early.
      expect(errors(emitted, 'invalidEvent')).toEqual([`now() must be a finite time in milliseconds, got ${shown}`]);
      expect(target.messages().map((m) => m.n)).toEqual([1, 2]);
      broken = undefined;
      advance(2_000);
      expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3, 4]);
      expect(delivered.every(Number.isFinite)).toBe(true);
      // The bad readings counted as the last good one (0), so the wait for 3 and 4 was armed from
      // there at 300: late by what the throttler could not see, never early.
      expect(delivered).toEqual([0, 0, 1_300, 1_300]);
      expect(actor.getSnapshot().status).toBe('active');
    },
  );

  it('a step back is absorbed: no stall for the length of the step, and the window still holds', () => {
    let stepBack = 0;
    const target = createRecorder<Numbered>();
    const delivered: number[] = [];
    const { actor, emitted, send } = startThrottler({
      rate: '1/1s',
      strategy: 'sliding-window',
      target: target.ref,
      now: () => performance.now() - stepBack,
    });
    actor.on('delivered', (event) => delivered.push(event.at));
    send({ type: 'QUEUE', message: msg(1) });
    send({ type: 'QUEUE', message: msg(2) });
    send({ type: 'QUEUE', message: msg(3) });
    advance(500);
    send({ type: 'RESUME' });
    // The source jumps back by 10 s (a wall clock set back, a restarted counter).
    stepBack = 10_000;
    send({ type: 'RESUME' });
    expect(errors(emitted, 'invalidEvent')).toEqual([
      "now() must be never earlier than its last reading (500); the throttler's time carries on from 500, got -9500",
    ]);
    advance(1_500);
    // Without the clamp, message 2 would wait until the source read 1000 again: 10.5 s of real time.
    expect(target.times()).toEqual([0, 1_000, 2_000]);
    expect(delivered).toEqual([0, 1_000, 2_000]);
  });

  it('a time source that fails when the throttler is created puts it in error, naming now()', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', now: () => Number.NaN } });
    actor.subscribe({ error: () => {} });
    actor.start();
    expect(actor.getSnapshot().status).toBe('error');
    expect((actor.getSnapshot().error as Error).message).toBe('now() must be a finite time in milliseconds, got NaN');
  });
});

/** Objects an answer is written into, as a hostile sender could make them: each throws or cannot be written. */
function hostileAnswerObjects(fields: readonly [string, string]) {
  const [first, second] = fields;
  const throws = () => {
    throw new Error('hostile');
  };
  const everyTrapThrows = new Proxy(
    {},
    {
      get: throws,
      set: throws,
      has: throws,
      getOwnPropertyDescriptor: throws,
      getPrototypeOf: throws,
      isExtensible: throws,
      ownKeys: throws,
      defineProperty: throws,
    },
  );
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  return [
    [`a read-only ${first}`, Object.defineProperty({ [second]: 0 }, first, { value: 0, writable: false }), `${first}`],
    [
      `a ${first} getter and setter that throw`,
      Object.defineProperty({ [second]: 0 }, first, { get: throws, set: throws, enumerable: true }),
      `${first}`,
    ],
    [`${second} with a setter that does nothing`, Object.defineProperty({}, second, { set: () => {} }), `${second}`],
    [`a sealed object without ${first}`, Object.seal({ [second]: 0 }), `${first}`],
    [`a read-only ${first} inherited`, Object.create(Object.freeze({ [first]: 0, [second]: 0 })), `${first}`],
    ['a Proxy whose every trap throws', everyTrapThrows, ''],
    ['a revoked Proxy', revoked.proxy, ''],
  ] as const;
}

describe('hostile answer objects (a LEASE’s lease, a TRY_ACQUIRE’s reply): refused before anything changes', () => {
  it.each(hostileAnswerObjects(['granted', 'spent']))(
    'LEASE with %s: invalidEvent, the queue intact',
    (_name, lease, field) => {
      const started = withOneWaiting();
      // LEASE is the promise API's own event (a user's is refused as an unknown type); marked as the
      // library marks it, a hostile lease object is still refused before anything changes.
      started.send(leaseEvent(3, lease as never));
      const option = field === '' ? 'lease' : `lease.${field}`;
      expect(errors(started.emitted, 'invalidEvent')).toEqual([
        expect.stringMatching(new RegExp(`^${option} must be `)),
      ]);
      expectStillWorking(started);
    },
  );

  it.each(hostileAnswerObjects(['waitMs', 'error']))(
    'TRY_ACQUIRE with %s: invalidEvent, the queue intact',
    (_name, reply, field) => {
      const started = withOneWaiting();
      started.send({ type: 'TRY_ACQUIRE', reply });
      const option = field === '' ? 'reply' : `reply.${field}`;
      expect(errors(started.emitted, 'invalidEvent')).toEqual([
        expect.stringMatching(new RegExp(`^${option} must be `)),
      ]);
      expectStillWorking(started);
    },
  );

  it('TRY_ACQUIRE whose reply.cancelled getter throws: refused, no permit taken', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted, send } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    const reply = Object.defineProperty({}, 'cancelled', {
      get: () => {
        throw new Error('hostile');
      },
    });
    send({ type: 'TRY_ACQUIRE', reply });
    expect(errors(emitted, 'invalidEvent')).toEqual([
      expect.stringMatching(/^reply\.cancelled must be a field that can be read/),
    ]);
    send({ type: 'QUEUE', message: msg(1) });
    expect(target.times()).toEqual([0]);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it('a Proxy that passes the checks and then throws on the write: refused, and a lease it opened is charged whole', () => {
    const target = createRecorder<Numbered>();
    // Nobody listens to every event: a listener to `delivered` would get no lease at all.
    const actor = createActor(throttlerMachine, {
      input: { rate: '3/1s', strategy: 'sliding-window', target: target.ref },
    }).start();
    const emitted: ThrottlerEmitted[] = [];
    actor.on('invalidEvent', (event) => emitted.push(event));
    const send = (event: unknown) => actor.send(event as never);
    const throwsOnWrite = new Proxy(
      {},
      {
        set: () => {
          throw new Error('hostile');
        },
      },
    );
    send(leaseEvent(3, throwsOnWrite as never));
    expect(errors(emitted, 'invalidEvent')).toEqual([expect.stringMatching(/^lease must be a writable object/)]);
    // The holder may have seen what was granted: the next event ends the lease and counts all three.
    const reply: { waitMs?: number } = {};
    send({ type: 'TRY_ACQUIRE', reply });
    expect(reply.waitMs).toBe(1_000);
    send({ type: 'TRY_ACQUIRE', reply: throwsOnWrite });
    expect(errors(emitted, 'invalidEvent')).toHaveLength(2);
    send({ type: 'QUEUE', message: msg(1) });
    advance(1_000);
    expect(target.times()).toEqual([1_000]);
    expect(actor.getSnapshot().status).toBe('active');
  });
});
