import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  type ThrottlerEmitted,
  ThrottlerExpiredError,
  type ThrottlerInput,
  throttlerMachine,
} from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, now, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * Deadlines (`deadline`, `maxWait`) in the machine, by example, in virtual time: a message that
 * cannot go by its deadline is dropped ('expired') when the one wake-up timer reaches it, never
 * delivered late; hostile values are rejected as invalid and the throttler goes on.
 */

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

function start(input: Omit<ThrottlerInput, 'target'>, withTarget = true) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: { strategy: 'sliding-window', ...input, target: withTarget ? target.ref : undefined },
  });
  const emitted: ThrottlerEmitted[] = [];
  const expired: Array<[number, number]> = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  actor.on('dropped', (event) => {
    if (event.reason === 'expired') expired.push([(event.message as Numbered).n, now()]);
  });
  actor.start();
  const delivered = () => target.received.map(({ message, at }) => [message.n, at]);
  return { actor, target, emitted, expired, delivered };
}

describe('deadlines', () => {
  it("maxWait as a duration string ('2s') reads as its milliseconds", () => {
    const { actor, emitted, delivered } = start({ rate: '1/1s' });
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'QUEUE', message: msg(1), maxWait: '500ms' });
    actor.send({ type: 'QUEUE', message: msg(2), maxWait: '2s' });
    advance(3_000);
    expect(delivered().map(([n]) => n)).toEqual([0, 2]);
    expect(emitted.filter((e) => e.type === 'dropped').map((e) => (e as { reason: string }).reason)).toEqual([
      'expired',
    ]);
  });

  it('maxWait: a message that cannot go within it is dropped when it runs out, with reason "expired"', () => {
    const { actor, expired, delivered, emitted } = start({ rate: '1/1s' });
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'QUEUE', message: msg(1), maxWait: 500 });
    actor.send({ type: 'QUEUE', message: msg(2), maxWait: 1500 });
    // The one timer wakes for the deadline at 500, before the next slot at 1000.
    expect(actor.getSnapshot().context.wakeAt).toBe(500);
    expect(pendingTimers()).toBe(1);
    advance(3_000);
    expect(expired).toEqual([[1, 500]]);
    expect(delivered()).toEqual([
      [0, 0],
      [2, 1000],
    ]);
    const drop = emitted.find((e) => e.type === 'dropped');
    expect(drop?.type === 'dropped' && drop.error.message).toBe(
      "Message dropped: its deadline (deadline or maxWait) passed before the rate let it go (deadline 500 ms on the throttler's clock)",
    );
    expect(drop?.type === 'dropped' && drop.error).toBeInstanceOf(ThrottlerExpiredError);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 2, dropped: 1, rejected: 0 });
  });

  it('deadline: a time on the throttler clock; a message may still go at its deadline itself', () => {
    const { actor, expired, delivered } = start({ rate: '1/1s' });
    advance(100);
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'QUEUE', message: msg(1), deadline: 1100 }); // the slot is at 1100: it goes
    actor.send({ type: 'QUEUE', message: msg(2), deadline: 2099 }); // the next is at 2100: too late
    advance(5_000);
    expect(delivered()).toEqual([
      [0, 100],
      [1, 1100],
    ]);
    expect(expired).toEqual([[2, 2099]]);
  });

  it('maxWait 0: goes if the rate allows it at once, else is dropped at once', () => {
    const { actor, expired, delivered } = start({ rate: '1/1s' });
    actor.send({ type: 'QUEUE', message: msg(0), maxWait: 0 });
    actor.send({ type: 'QUEUE', message: msg(1), maxWait: 0 });
    expect(delivered()).toEqual([[0, 0]]);
    expect(expired).toEqual([[1, 0]]);
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
  });

  it('a deadline already past on arrival: dropped at once, never queued', () => {
    const { actor, expired, delivered } = start({ rate: '1/1s' });
    advance(1_000);
    actor.send({ type: 'QUEUE', message: msg(0), deadline: 999 });
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: msg(1), deadline: 5 }, { message: msg(2) }] });
    advance(2_000);
    expect(expired).toEqual([
      [0, 1000],
      [1, 1000],
    ]);
    expect(delivered()).toEqual([[2, 1000]]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 1, dropped: 2, rejected: 0 });
  });

  it('Infinity is no deadline', () => {
    const { actor, expired, delivered } = start({ rate: '1/1s' });
    for (const n of [0, 1, 2]) actor.send({ type: 'QUEUE', message: msg(n), maxWait: Number.POSITIVE_INFINITY });
    actor.send({ type: 'QUEUE', message: msg(3), deadline: Number.POSITIVE_INFINITY });
    advance(5_000);
    expect(expired).toEqual([]);
    expect(delivered().map(([n]) => n)).toEqual([0, 1, 2, 3]);
  });

  it('a thousand deadlines: still one timer, each message dropped at its own deadline', () => {
    const { actor, expired } = start({ rate: '1/1h' });
    actor.send({ type: 'QUEUE', message: msg(-1) });
    for (let n = 0; n < 1000; n++) actor.send({ type: 'QUEUE', message: msg(n), maxWait: 1000 + ((n * 7919) % 1000) });
    expect(pendingTimers()).toBe(1);
    advance(3_000);
    expect(expired).toHaveLength(1000);
    for (const [n, at] of expired) expect(at).toBe(1000 + ((n * 7919) % 1000));
    expect(pendingTimers()).toBe(0);
    expect(actor.getSnapshot().value).toBe('idle');
  });

  it('a cancelled message takes its deadline with it: no wake-up is left for it', () => {
    const { actor, expired } = start({ rate: '1/1h' });
    actor.send({ type: 'QUEUE', message: msg(0) });
    actor.send({ type: 'QUEUE', message: msg(1), maxWait: 500, id: 'one' });
    actor.send({ type: 'QUEUE', message: msg(2), maxWait: 800 });
    actor.send({ type: 'CANCEL', id: 'one' });
    expect(actor.getSnapshot().context.wakeAt).toBe(800);
    advance(1_000);
    expect(expired).toEqual([[2, 800]]);
  });

  it("with 'per-channel' ordering and priorities: each deadline is kept", () => {
    const { actor, expired, delivered } = start({
      rate: '10/1s',
      channels: { a: '1/1s', b: '1/1s' },
      ordering: 'per-channel',
    });
    actor.send({ type: 'QUEUE', message: msg(0), channel: 'a' });
    actor.send({ type: 'QUEUE', message: msg(1), channel: 'a', maxWait: 999 });
    actor.send({ type: 'QUEUE', message: msg(2), channel: 'a', maxWait: 1000, priority: 9 });
    actor.send({ type: 'QUEUE', message: msg(3), channel: 'b', maxWait: 0 });
    advance(5_000);
    expect(delivered()).toEqual([
      [0, 0],
      [3, 0],
      [2, 1000],
    ]);
    expect(expired).toEqual([[1, 999]]);
  });

  it('without a target the throttler is idle with no timer: a message past its deadline is dropped at the next event, never delivered', () => {
    const { actor, target, expired, delivered } = start({ rate: '1/1s' }, false);
    actor.send({ type: 'QUEUE', message: msg(0), maxWait: 100 });
    actor.send({ type: 'QUEUE', message: msg(1) });
    expect(pendingTimers()).toBe(0);
    advance(1_000);
    expect(expired).toEqual([]);
    actor.send({ type: 'SET_TARGET', target: target.ref });
    expect(expired).toEqual([[0, 1000]]);
    expect(delivered()).toEqual([[1, 1000]]);
  });

  it('TRY_ACQUIRE, asking what waits, drops what is past its deadline and says so', () => {
    const { actor, expired } = start({ rate: '1/1s' }, false);
    actor.send({ type: 'QUEUE', message: msg(0), maxWait: 100 });
    advance(200);
    const reply: { waitMs?: number } = {};
    actor.send({ type: 'TRY_ACQUIRE', reply });
    expect(expired).toEqual([[0, 200]]);
    expect(reply.waitMs).toBe(0);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 0, dropped: 1, rejected: 0 });
  });
});

describe('hostile deadlines', () => {
  it.each([
    ['deadline', -1, /^deadline must be a time >= 0 in ms on the throttler clock \(its `now`\), got -1$/],
    ['deadline', Number.NaN, /^deadline must be .*, got NaN$/],
    ['deadline', '100', /^deadline must be .*, got "100"$/],
    ['deadline', null, /^deadline must be .*, got null$/],
    ['deadline', Number.NEGATIVE_INFINITY, /^deadline must be .*, got -Infinity$/],
    ['maxWait', -5, /^maxWait must be a wait >= 0 in ms, or a duration such as '2s', got -5$/],
    ['maxWait', Number.NaN, /^maxWait must be a wait >= 0 in ms, or a duration such as '2s', got NaN$/],
    ['maxWait', '5 seconds', /^maxWait must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "5 seconds"$/],
    ['maxWait', {}, /^maxWait must be a wait >= 0 in ms, or a duration such as '2s', got /],
  ])('%s %s is rejected as invalid, naming the field and the value; the throttler goes on', (field, value, error) => {
    const { actor, emitted, delivered } = start({ rate: '1/1s' });
    actor.send({ type: 'QUEUE', message: msg(0), [field]: value } as never);
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: msg(1), [field]: value }, { message: msg(2) }] } as never);
    actor.send({ type: 'QUEUE', message: msg(3), maxWait: 5_000 });
    advance(3_000);
    const rejected = emitted.flatMap((e) => (e.type === 'rejected' ? [[e.reason, e.error.message]] : []));
    expect(rejected).toHaveLength(2);
    for (const [reason, message] of rejected) {
      expect(reason).toBe('invalid');
      expect(message).toMatch(error);
    }
    expect(delivered().map(([n]) => n)).toEqual([2, 3]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 2, dropped: 0, rejected: 2 });
  });

  it('deadline and maxWait together are refused: one or the other', () => {
    const { actor, emitted } = start({ rate: '1/1s' });
    actor.send({ type: 'QUEUE', message: msg(0), deadline: 10, maxWait: 10 });
    const rejected = emitted.find((e) => e.type === 'rejected');
    expect(rejected?.type === 'rejected' && [rejected.reason, rejected.error.message]).toEqual([
      'invalid',
      'deadline must be left out when a maxWait is given (one or the other), got 10',
    ]);
  });
});
