import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { resolveOptions } from '../../src/engine/options/options.js';
import { type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { machineContext } from '../support/machine-context.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * Priorities in the machine, by example, in virtual time: higher first among what the rate allows,
 * equal priority in arrival order, aging (maxPriorityWait), per-channel ordering, costs, overflow,
 * CANCEL, and hostile priorities (rejected as invalid, the throttler going on).
 */

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

function start(input: Omit<ThrottlerInput, 'target'>) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, { input: { strategy: 'sliding-window', ...input } });
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  actor.start();
  const order = () => target.messages().map((m) => m.n);
  return { actor, target, emitted, order };
}

/** Queues messages n with these priorities (undefined: the default) before the target is set. */
function queueAll(actor: ReturnType<typeof start>['actor'], priorities: Array<number | undefined>, extra = {}) {
  for (const [n, priority] of priorities.entries())
    actor.send({ type: 'QUEUE', message: msg(n), ...(priority === undefined ? {} : { priority }), ...extra });
}

describe('priorities', () => {
  it('sends the higher priority first among what waits; equal priority keeps arrival order; the default is 5', () => {
    const { actor, target, order } = start({ rate: '1/1s' });
    queueAll(actor, [0, 9, undefined, 9, 5, 0, 7]);
    actor.send({ type: 'SET_TARGET', target: target.ref });
    advance(10_000);
    expect(order()).toEqual([1, 3, 6, 2, 4, 0, 5]);
    expect(target.times()).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000]);
  });

  it('a message that arrives later with a higher priority overtakes the queue, at the next moment the rate allows', () => {
    const { actor, target, order } = start({ rate: '1/1s' });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    queueAll(actor, [undefined, undefined, undefined, undefined]);
    advance(1_500);
    actor.send({ type: 'QUEUE', message: msg(9), priority: 9 });
    advance(10_000);
    expect(order()).toEqual([0, 1, 9, 2, 3]);
    expect(target.times()).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it('ages: a message overtakes another only if it arrived less than (priority difference) × maxPriorityWait / 9 after it', () => {
    // 900 ms: each level is worth 100 ms of waiting.
    const { actor, target, order } = start({ rate: '1/10s', maxPriorityWait: 900 });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(0) }); // goes at once
    actor.send({ type: 'QUEUE', message: msg(1), priority: 0 }); // rank 0
    advance(850);
    actor.send({ type: 'QUEUE', message: msg(2), priority: 9 }); // rank 850 − 900 = −50: before 1
    advance(100);
    actor.send({ type: 'QUEUE', message: msg(3), priority: 9 }); // rank 950 − 900 = 50: after 1
    actor.send({ type: 'QUEUE', message: msg(4), priority: 8 }); // rank 950 − 800 = 150: after 1
    advance(60_000);
    expect(order()).toEqual([0, 2, 1, 3, 4]);
  });

  it('has the same bound by default (60 s): a message that waited a minute goes before anything newer', () => {
    const { actor, target, order } = start({ rate: '1/2m' });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    queueAll(actor, [undefined, 0]); // 0 goes at once; 1 (rank 0) waits for the next slot, at 2 min
    advance(59_999);
    actor.send({ type: 'QUEUE', message: msg(2), priority: 9 }); // rank 59 999 − 60 000 < 0: before 1
    advance(1);
    actor.send({ type: 'QUEUE', message: msg(3), priority: 9 }); // rank 0, a tie: 1 arrived first
    advance(400_000);
    expect(order()).toEqual([0, 2, 1, 3]);
  });

  it("with 'per-channel' ordering: priority orders each channel's queue, and breaks ties between channels", () => {
    const { actor, target, order } = start({
      rate: '10/1s',
      channels: { a: '1/1s', b: '1/1s' },
      ordering: 'per-channel',
    });
    actor.send({ type: 'QUEUE', message: msg(0), channel: 'a' });
    actor.send({ type: 'QUEUE', message: msg(1), channel: 'a', priority: 1 });
    actor.send({ type: 'QUEUE', message: msg(2), channel: 'a', priority: 8 });
    actor.send({ type: 'QUEUE', message: msg(3), channel: 'b', priority: 2 });
    actor.send({ type: 'QUEUE', message: msg(4), channel: 'b', priority: 9 });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    advance(5_000);
    // At 0: b's 4 (9) before a's 2 (8); at 1000: a's 0 (5) before b's 3 (2); then a's 1.
    expect(order()).toEqual([4, 2, 0, 3, 1]);
  });

  it('a costly message of high priority holds the line in FIFO ordering until the rate allows its cost', () => {
    const { actor, target, order } = start({ rate: '3/1s' });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(0), cost: 2 });
    actor.send({ type: 'QUEUE', message: msg(1) });
    actor.send({ type: 'QUEUE', message: msg(2), cost: 3, priority: 9 });
    advance(5_000);
    expect(order()).toEqual([0, 1, 2]);
    actor.send({ type: 'QUEUE', message: msg(3) });
    actor.send({ type: 'QUEUE', message: msg(4), cost: 3, priority: 9 });
    actor.send({ type: 'QUEUE', message: msg(5) });
    advance(5_000);
    // 3 went at once; 4 waits until 3 leaves the window, and 5 waits behind it until 4's cost does.
    expect(order()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(target.times().slice(3)).toEqual([5000, 6000, 7000]);
  });

  it('CANCEL takes out a message of any priority by its id; what is left keeps its order', () => {
    const { actor, target, order, emitted } = start({ rate: '1/1s' });
    actor.send({ type: 'QUEUE', message: msg(0), priority: 9, id: 'x' });
    actor.send({ type: 'QUEUE', message: msg(1), priority: 2 });
    actor.send({ type: 'QUEUE', message: msg(2), priority: 9, id: 'y' });
    actor.send({ type: 'CANCEL', id: 'x' });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    advance(5_000);
    expect(order()).toEqual([2, 1]);
    expect(emitted.filter((e) => e.type === 'dropped').map((e) => [(e.message as Numbered).n, e.reason])).toEqual([
      [0, 'cancelled'],
    ]);
  });
});

describe('a full queue with priorities', () => {
  const dropped = (emitted: ThrottlerEmitted[]) =>
    emitted.flatMap((e) => (e.type === 'dropped' ? [[(e.message as Numbered).n, e.reason]] : []));
  const rejected = (emitted: ThrottlerEmitted[]) =>
    emitted.flatMap((e) => (e.type === 'rejected' ? [[(e.message as Numbered).n, e.reason, e.error.message]] : []));

  it("'drop-oldest' drops the oldest message of the lowest priority waiting, never a higher one", () => {
    const { actor, emitted } = start({ rate: '1/1s', capacity: 3, overflow: 'drop-oldest' });
    queueAll(actor, [9, 1, 1]);
    actor.send({ type: 'QUEUE', message: msg(3), priority: 5 });
    actor.send({ type: 'QUEUE', message: msg(4), priority: 1 });
    expect(dropped(emitted)).toEqual([
      [1, 'drop-oldest'],
      [2, 'drop-oldest'],
    ]);
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 3, dropped: 2 });
  });

  it("'drop-newest' drops the newest message of the lowest priority waiting", () => {
    const { actor, emitted } = start({ rate: '1/1s', capacity: 3, overflow: 'drop-newest' });
    queueAll(actor, [1, 1, 9]);
    actor.send({ type: 'QUEUE', message: msg(3), priority: 5 });
    expect(dropped(emitted)).toEqual([[1, 'drop-newest']]);
  });

  it('refuses a message of lower priority than everything waiting (it would be the first to go), rejected with reason overflow', () => {
    for (const overflow of ['drop-oldest', 'drop-newest'] as const) {
      const { actor, emitted } = start({ rate: '1/1s', capacity: 2, overflow });
      queueAll(actor, [7, 6]);
      actor.send({ type: 'QUEUE', message: msg(2), priority: 3 });
      expect(dropped(emitted)).toEqual([]);
      expect(rejected(emitted)).toEqual([
        [
          2,
          'overflow',
          'Message rejected: the queue is full of messages of higher priority (it would be the first to be dropped)',
        ],
      ]);
      expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 2, rejected: 1 });
    }
  });

  it('per-channel: the lowest priority is found across channels, its oldest message dropped', () => {
    const { actor, emitted, target, order } = start({
      rate: '10/1s',
      channels: { a: '1/1m', b: '1/1m' },
      ordering: 'per-channel',
      capacity: 4,
      overflow: 'drop-oldest',
    });
    actor.send({ type: 'QUEUE', message: msg(0), channel: 'a', priority: 4 });
    actor.send({ type: 'QUEUE', message: msg(1), channel: 'b', priority: 8 });
    actor.send({ type: 'QUEUE', message: msg(2), channel: 'b', priority: 2 });
    actor.send({ type: 'QUEUE', message: msg(3), channel: 'a', priority: 2 });
    actor.send({ type: 'QUEUE', message: msg(4), channel: 'a', priority: 9 });
    actor.send({ type: 'QUEUE', message: msg(5), channel: 'b', priority: 9 });
    expect(dropped(emitted)).toEqual([
      [2, 'drop-oldest'],
      [3, 'drop-oldest'],
    ]);
    actor.send({ type: 'SET_TARGET', target: target.ref });
    expect(order()).toEqual([4, 5]);
  });
});

describe('hostile priorities', () => {
  it.each([
    ['a fraction', 1.5],
    ['negative', -1],
    ['above 9', 10],
    ['a string', '5'],
    ['NaN', Number.NaN],
    ['null', null],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an object', { valueOf: (): number => 5 }],
  ])('%s is rejected as invalid, naming the field and the value; the throttler goes on', (_name, priority) => {
    const { actor, target, emitted, order } = start({ rate: '1/1s' });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    actor.send({ type: 'QUEUE', message: msg(0), priority } as never);
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: msg(1), priority }, { message: msg(2) }] } as never);
    actor.send({ type: 'QUEUE', message: msg(3), priority: 9 });
    advance(3_000);
    const errors = emitted.flatMap((e) => (e.type === 'rejected' ? [[e.reason, e.error.message]] : []));
    expect(errors).toHaveLength(2);
    for (const [reason, message] of errors) {
      expect(reason).toBe('invalid');
      expect(message).toMatch(/^priority must be an integer from 0 \(goes last\) to 9 \(goes first\), default 5, got /);
    }
    expect(order()).toEqual([2, 3]);
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 2, dropped: 0, rejected: 2 });
  });

  it('maxPriorityWait is checked as the option it is', () => {
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 'soon', null]) {
      expect(() => resolveOptions({ rate: '1/1s', maxPriorityWait: bad as never })).toThrow(
        /^maxPriorityWait must be /,
      );
    }
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', maxPriorityWait: '2m' } }).start();
    expect(machineContext(actor).dispatcher.toJSON().options.maxPriorityWait).toBe(120_000);
  });
});
