import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, sendTo, setup } from 'xstate';
import { restoreThrottler, type ThrottlerEmitted, throttlerMachine } from '../../src/index.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * A target set before it was started (SET_TARGET or the input's target, an actor not yet started):
 * XState would keep everything sent to it in its mailbox and hand it over at once when it starts, so
 * the throttler would count deliveries the receiver gets later in one burst. It holds instead, says so
 * once (`targetNotStarted`), and paces from the target's start.
 */
beforeEach(useVirtualTime);
afterEach(restoreRealTime);

type Numbered = { type: 'n'; n: number };
const msg = (n: number): Numbered => ({ type: 'n', n });

function unstartedTarget() {
  const received: Array<[number, number]> = [];
  const target = createActor(
    fromCallback<Numbered>(({ receive }) => {
      receive((message) => received.push([message.n, now()]));
    }),
  );
  return { target, received };
}

function throttler(input: Parameters<typeof createActor<typeof throttlerMachine>>[1] extends infer O ? O : never) {
  const actor = createActor(throttlerMachine, input).start();
  const emitted: ThrottlerEmitted[] = [];
  // The queue's own comings and goings (queued, dequeued: for metrics) are not what these tests watch.
  actor.on('*', (event) => {
    if (event.type !== 'queued' && event.type !== 'dequeued') emitted.push(event as ThrottlerEmitted);
  });
  return { actor, emitted };
}

describe('a target that was never started', () => {
  it('SET_TARGET: nothing is sent until it starts, which is reported once; then the rate paces from its start', () => {
    const { actor, emitted } = throttler({ input: { rate: '2/1s', strategy: 'sliding-window' } });
    const { target, received } = unstartedTarget();
    for (let n = 0; n < 6; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    actor.send({ type: 'SET_TARGET', target });
    advance(5_000);
    expect(received).toEqual([]);
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 6, delivered: 0 });
    const notice = emitted.filter((event) => event.type === 'targetNotStarted');
    expect(notice).toEqual([{ type: 'targetNotStarted', target, waiting: 6, at: 0 }]);
    target.start();
    advance(3_000);
    expect(received).toEqual([
      [0, 5_000],
      [1, 5_000],
      [2, 6_000],
      [3, 6_000],
      [4, 7_000],
      [5, 7_000],
    ]);
    expect(emitted.filter((event) => event.type === 'targetNotStarted')).toHaveLength(1);
    actor.stop();
  });

  it("the input's target: a message that could go at once waits for the start too", () => {
    const { target, received } = unstartedTarget();
    const { actor, emitted } = throttler({ input: { rate: '10/1s', strategy: 'sliding-window', target } });
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: msg(1) }, { message: msg(2) }] });
    advance(1_000);
    expect(received).toEqual([]);
    expect(emitted.map((event) => event.type)).toEqual(['targetNotStarted']);
    target.start();
    expect(received).toEqual([
      [0, 1_000],
      [1, 1_000],
      [2, 1_000],
    ]);
    expect(actor.getSnapshot().context.counts.delivered).toBe(3);
    actor.stop();
  });

  it('a target stopped before it ever started is lost at the next event (targetLost), its messages kept', () => {
    const { actor, emitted } = throttler({ input: { rate: '10/1s' } });
    const { target } = unstartedTarget();
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'SET_TARGET', target });
    // XState tells no observer of a stop before the start (and its snapshot still reads 'active'):
    // the next event finds it, where a send would have been dropped without a word.
    target.stop();
    actor.send({ type: 'QUEUE', message: msg(1) });
    expect(emitted.map((event) => event.type)).toEqual(['targetNotStarted', 'targetLost']);
    expect(actor.getSnapshot().context.target).toBeUndefined();
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 2, delivered: 0 });
    actor.stop();
  });

  it('restoreThrottler with a target not started yet: the restored queue waits for its start', () => {
    const { actor } = throttler({ input: { rate: '1/1s', strategy: 'sliding-window' } });
    for (let n = 0; n < 3; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    const { target, received } = unstartedTarget();
    const restored = restoreThrottler(saved, { target });
    advance(5_000);
    expect(received).toEqual([]);
    expect(restored.getSnapshot().value).toBe('idle');
    target.start();
    advance(3_000);
    expect(received.map(([n]) => n)).toEqual([0, 1, 2]);
    expect(received[1]?.[1]).toBe((received[0]?.[1] ?? 0) + 1_000);
    restored.stop();
  });

  it('another target set meanwhile takes over; the first one starting later changes nothing', () => {
    const { actor } = throttler({ input: { rate: '10/1s' } });
    const first = unstartedTarget();
    const second = unstartedTarget();
    second.target.start();
    actor.send({ type: 'SET_TARGET', target: first.target });
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'SET_TARGET', target: second.target });
    advance(10);
    first.target.start();
    advance(1_000);
    expect(first.received).toEqual([]);
    expect(second.received.map(([n]) => n)).toEqual([0]);
    actor.stop();
  });

  it('the parent as the target of its invoked throttler (input: ({ self }) => ...): started in time, not held', () => {
    const got: number[] = [];
    const parent = setup({ actors: { throttlerMachine } }).createMachine({
      invoke: {
        id: 'throttler',
        src: 'throttlerMachine',
        input: ({ self }) => ({ rate: '1/1s', strategy: 'sliding-window' as const, target: self }),
      },
      entry: [1, 2].map((n) => sendTo('throttler', { type: 'QUEUE', message: { type: 'job', n } })),
      on: { job: { actions: ({ event }) => got.push((event as unknown as { n: number }).n) } },
    });
    const actor = createActor(parent).start();
    advance(1_000);
    expect(got).toEqual([1, 2]);
    actor.stop();
  });
});
