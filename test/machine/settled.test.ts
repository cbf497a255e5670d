import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * SETTLED says "a delivery of this channel and cost has finished". It must match
 * a delivery in flight, or it is refused with invalidEvent and changes nothing:
 * with countUntil 'done' a settle puts cost into the window and frees a slot, so
 * a wrong or repeated one could open the strict window or hold a slot forever.
 */
function start(input: Partial<ThrottlerInput>) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: { rate: '3/1s', strategy: 'sliding-window', countUntil: 'done', target: target.ref, ...input },
  }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  const send = (event: unknown) => actor.send(event as never);
  const refused = () => emitted.flatMap((event) => (event.type === 'invalidEvent' ? [event.error.message] : []));
  return { actor, target, send, refused };
}

/** The most cost in any window [t, t + interval), by brute force over the delivery times. */
function busiestWindow(times: readonly number[], interval: number): number {
  return Math.max(0, ...times.map((start) => times.filter((t) => t >= start && t < start + interval).length));
}

describe('SETTLED is matched against the deliveries in flight', () => {
  it('a settle with a larger cost than any delivery in flight is refused and opens nothing', () => {
    const { actor, target, send, refused } = start({});
    for (let n = 1; n <= 30; n++) send({ type: 'QUEUE', message: msg(n) });
    expect(target.received).toHaveLength(3);
    send({ type: 'SETTLED', cost: 5 });
    expect(refused()).toEqual([
      'SETTLED must be the channel and cost of a delivery in flight (in flight: 3 of channel undefined with cost 1), got {"cost":5}',
    ]);
    // Before the fix this one settle made room for 27 more inside the same window.
    advance(500);
    expect(target.received).toHaveLength(3);
    for (let i = 0; i < 3; i++) send({ type: 'SETTLED' });
    advance(10_000);
    expect(busiestWindow(target.times(), 1_000)).toBeLessThanOrEqual(3);
    expect(actor.getSnapshot().context.inFlight).toBe(3);
  });

  it('a repeated settle is refused: one delivery settles once', () => {
    const { actor, target, send, refused } = start({ rate: '1/1s' });
    send({ type: 'QUEUE', message: msg(1) });
    send({ type: 'QUEUE', message: msg(2) });
    send({ type: 'SETTLED' });
    send({ type: 'SETTLED' });
    expect(refused()).toEqual([
      'SETTLED must be the channel and cost of a delivery in flight (in flight: nothing), got {"cost":1}',
    ]);
    advance(999);
    expect(target.received).toHaveLength(1);
    advance(1);
    expect(target.received).toHaveLength(2);
    expect(actor.getSnapshot().context.inFlight).toBe(1);
  });

  it('settling cost-2 deliveries without a cost is refused with an event, and the right settle frees them', () => {
    const { target, send, refused } = start({ rate: '4/1s' });
    for (let n = 1; n <= 4; n++) send({ type: 'QUEUE', message: msg(n), cost: 2 });
    expect(target.received).toHaveLength(2);
    send({ type: 'SETTLED' });
    expect(refused()).toEqual([
      'SETTLED must be the channel and cost of a delivery in flight (in flight: 2 of channel undefined with cost 2), got {"cost":1}',
    ]);
    send({ type: 'SETTLED', cost: 2 });
    send({ type: 'SETTLED', cost: 2 });
    advance(1_000);
    expect(target.times()).toEqual([0, 0, 1_000, 1_000]);
  });

  it("a channel's delivery settled without its channel is refused; with it, it settles", () => {
    const { target, send, refused } = start({ rate: '5/1s', channels: { search: '1/1s' }, maxConcurrent: 1 });
    send({ type: 'QUEUE', message: msg(1), channel: 'search' });
    send({ type: 'QUEUE', message: msg(2) });
    send({ type: 'SETTLED' });
    expect(refused()).toEqual([
      'SETTLED must be the channel and cost of a delivery in flight (in flight: 1 of channel "search" with cost 1), got {"cost":1}',
    ]);
    expect(target.received).toHaveLength(1);
    send({ type: 'SETTLED', channel: 'search' });
    expect(target.messages().map((m) => m.n)).toEqual([1, 2]);
  });

  it.each([
    ['a cost of 0', { cost: 0 }, 'cost must be the positive integer cost of a delivery in flight, got 0'],
    ['a fractional cost', { cost: 1.5 }, 'cost must be the positive integer cost of a delivery in flight, got 1.5'],
    ['a string cost', { cost: '1' }, 'cost must be the positive integer cost of a delivery in flight, got "1"'],
    ['a numeric channel', { channel: 3 }, 'channel must be the channel of a delivery in flight, or undefined, got 3'],
  ])('a settle with %s is refused, naming the field', (_name, fields, message) => {
    const { target, send, refused } = start({ rate: '1/1s' });
    send({ type: 'QUEUE', message: msg(1) });
    send({ type: 'SETTLED', ...fields });
    expect(refused()).toEqual([message]);
    send({ type: 'SETTLED' });
    send({ type: 'QUEUE', message: msg(2) });
    advance(1_000);
    expect(target.times()).toEqual([0, 1_000]);
  });

  it('without maxConcurrent or countUntil "done" nothing is tracked in flight: SETTLED is refused', () => {
    const { send, refused } = start({ countUntil: 'start' });
    send({ type: 'SETTLED' });
    expect(refused()).toEqual([
      'SETTLED must be sent only with maxConcurrent or countUntil "done" (nothing else is tracked in flight), got {}',
    ]);
  });

  it('maxConcurrent: a settle of the wrong channel never frees the slot of another', () => {
    const { target, send, refused } = start({
      countUntil: 'start',
      rate: '10/1s',
      channels: { a: '10/1s', b: '10/1s' },
      maxConcurrent: 1,
    });
    send({ type: 'QUEUE', message: msg(1), channel: 'a' });
    send({ type: 'QUEUE', message: msg(2), channel: 'b' });
    send({ type: 'SETTLED', channel: 'b' });
    expect(refused()).toHaveLength(1);
    expect(target.received).toHaveLength(1);
    send({ type: 'SETTLED', channel: 'a' });
    expect(target.received).toHaveLength(2);
  });
});
