import { afterEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { resolveOptions } from '../../src/engine/options/options.js';
import { restoreThrottler, type ThrottlerEmitted, ThrottlerOptionError, throttlerMachine } from '../../src/index.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

type Call = { type: 'call'; key: string; n: number };

/** A weighted throttler in virtual time, its target and what it emitted. */
function start(input: Record<string, unknown>) {
  useVirtualTime();
  const target = createRecorder<Call>();
  const actor = createActor(throttlerMachine, {
    input: { strategy: 'sliding-window', fairness: 'weighted', ...input, target: target.ref } as never,
  });
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  actor.start();
  const queue = (key: string, count: number, extra: Record<string, unknown> = {}) => {
    for (let n = 0; n < count; n++)
      actor.send({ type: 'QUEUE', message: { type: 'call', key, n }, channel: key, ...extra });
  };
  /** The keys delivered in [from, to), in order. */
  const keysIn = (from: number, to: number) =>
    target.received.filter(({ at }) => at >= from && at < to).map(({ message }) => message.key);
  return { actor, target, emitted, queue, keysIn };
}

const count = (keys: string[], key: string) => keys.filter((each) => each === key).length;

describe("fairness: 'weighted'", () => {
  it('shares a binding overall limit 3:1 between two backlogged keys of weights 3 and 1', () => {
    const { queue, keysIn, actor } = start({
      rate: '8/1s',
      keys: { rate: '100/1s' },
      weight: (key: string) => (key === 'big' ? 3 : 1),
    });
    queue('big', 60);
    queue('small', 60);
    advance(5000);
    for (let window = 1; window < 5; window++) {
      const keys = keysIn(window * 1000, (window + 1) * 1000);
      expect([count(keys, 'big'), count(keys, 'small')]).toEqual([6, 2]);
    }
    actor.stop();
  });

  it('gives a key capped by its own rate what it can take, and the rest to the others (work-conserving)', () => {
    const { queue, keysIn, actor } = start({ rate: '9/1s', channels: { a: '1/1s', b: '100/1s', c: '100/1s' } });
    queue('a', 20);
    queue('b', 40);
    queue('c', 40);
    advance(4000);
    for (let window = 1; window < 4; window++) {
      const keys = keysIn(window * 1000, (window + 1) * 1000);
      expect([count(keys, 'a'), count(keys, 'b'), count(keys, 'c')]).toEqual([1, 4, 4]);
    }
    actor.stop();
  });

  it('orders by priority within a key, not across keys', () => {
    const { queue, target, actor } = start({ rate: '1/1s', keys: { rate: '100/1s' } });
    queue('a', 1);
    queue('a', 2);
    queue('b', 2);
    queue('a', 1, { priority: 9 });
    advance(6000);
    const order = target.received.map(({ message }) => `${message.key}${message.n}`);
    // The first went at once; then a's urgent one leads a's, and b keeps its share.
    expect(order).toEqual(['a0', 'a0', 'b0', 'a0', 'b1', 'a1']);
    actor.stop();
  });

  it('asks the weight once per backlog, not per message', () => {
    const asked: string[] = [];
    const { queue, actor } = start({
      rate: '1/1s',
      keys: { rate: '100/1s' },
      weight: (key: string) => {
        asked.push(key);
        return 2;
      },
    });
    queue('a', 5);
    queue('b', 5);
    advance(20_000);
    queue('a', 3);
    advance(20_000);
    // 'a' went straight through first (never backlogged then); then one backlog each, then 'a' again.
    expect(asked).toEqual(['a', 'b', 'a']);
    actor.stop();
  });

  it("keeps a key's weight when a full queue displaces its only message for its next one", () => {
    const asked: string[] = [];
    const { queue, emitted, target, actor } = start({
      rate: '1/1s',
      keys: { rate: '100/1s' },
      capacity: 2,
      overflow: 'drop-oldest',
      weight: (key: string) => {
        asked.push(key);
        return 3;
      },
    });
    queue('a', 2);
    queue('b', 1);
    // Full: the oldest waiting, a's only one, makes room for a's next.
    queue('a', 1);
    advance(5000);
    expect(emitted.filter((event) => event.type === 'dropped')).toHaveLength(1);
    expect(asked).toEqual(['a', 'b']);
    // Equal tags (a's new head starts afresh): the earlier arrival, b, goes first.
    expect(target.received.map(({ message }) => message.key)).toEqual(['a', 'b', 'a']);
    actor.stop();
  });

  it('rejects the message whose weight throws or is no positive finite number, naming the key and the value; the throttler runs on', () => {
    const weights: Record<string, unknown> = { ok: 1, zero: 0, nan: Number.NaN, text: '2', tiny: 1e-320 };
    const { queue, emitted, target, actor } = start({
      rate: '1/1s',
      keys: { rate: '100/1s' },
      weight: (key: string) => {
        if (key === 'throws') throw new Error('no weight for you');
        return weights[key];
      },
    });
    queue('ok', 3);
    for (const key of ['throws', 'zero', 'nan', 'text', 'tiny']) queue(key, 1);
    advance(5000);
    const rejected = emitted.filter((event) => event.type === 'rejected');
    expect(rejected.map((event) => [event.reason, event.error.message])).toEqual([
      ['invalid', 'weight("throws") must be a positive finite number, not a throw, got "no weight for you"'],
      ['invalid', 'weight("zero") must be a positive finite number, got 0'],
      ['invalid', 'weight("nan") must be a positive finite number, got NaN'],
      ['invalid', 'weight("text") must be a positive finite number, got "2"'],
      // Its cost / weight would be Infinity: every finish tag after it would stop.
      ['invalid', 'weight("tiny") must be a positive finite number whose reciprocal is finite too, got 1e-320'],
    ]);
    expect((rejected[0]?.error as Error & { cause?: unknown }).cause).toEqual(new Error('no weight for you'));
    expect(rejected[0]?.error).toBeInstanceOf(ThrottlerOptionError);
    expect(target.received.map(({ message }) => message.key)).toEqual(['ok', 'ok', 'ok']);
    expect(actor.getSnapshot().status).toBe('active');
    actor.stop();
  });

  it('loses nothing through CANCEL, deadlines and SET_RATE', () => {
    const { actor, target, emitted } = start({ rate: '2/1s', keys: { rate: '100/1s' } });
    for (let n = 0; n < 6; n++) {
      actor.send({ type: 'QUEUE', message: { type: 'call', key: 'a', n }, channel: 'a', id: `a${n}` });
      actor.send({ type: 'QUEUE', message: { type: 'call', key: 'b', n }, channel: 'b', maxWait: 1500 });
    }
    actor.send({ type: 'CANCEL', id: 'a3' });
    actor.send({ type: 'SET_RATE', rate: '4/1s' });
    advance(10_000);
    const dropped = emitted.filter((event) => event.type === 'dropped').length;
    expect(target.received.length + dropped).toBe(12);
    expect(actor.getSnapshot().value).toBe('idle');
    actor.stop();
  });

  it('is saved with the snapshot (the weight function is not) and restored with tags afresh', () => {
    const { queue, actor } = start({ rate: '1/1s', keys: { rate: '100/1s' }, weight: () => 2 });
    queue('a', 3);
    queue('b', 3);
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.options.fairness).toBe('weighted');
    expect(saved.context.dispatcher.options).not.toHaveProperty('weight');
    const asked: string[] = [];
    const target = createRecorder<Call>();
    const restored = restoreThrottler(saved, {
      target: target.ref,
      weight: (key) => {
        asked.push(key);
        return 1;
      },
    });
    advance(10_000);
    expect(asked).toEqual(['a', 'b']);
    expect(target.received.map(({ message }) => message.key).sort()).toEqual(['a', 'a', 'b', 'b', 'b']);
    restored.stop();
  });
});

describe('fairness options', () => {
  it("implies ordering 'per-channel', weighs every key 1 by default", () => {
    const resolved = resolveOptions({ rate: '1/1s', fairness: 'weighted' });
    expect([resolved.ordering, resolved.fairness, resolved.weight]).toEqual(['per-channel', 'weighted', undefined]);
    expect(resolveOptions({ rate: '1/1s' }).fairness).toBe('none');
  });

  it('refuses what it cannot honour, naming the field and the value', () => {
    expectOptionError(() => resolveOptions({ rate: '1/1s', fairness: 'fair' as never }), {
      message: 'fairness must be "none" or "weighted", got "fair"',
      option: 'fairness',
      value: 'fair',
    });
    expectOptionError(() => resolveOptions({ rate: '1/1s', fairness: 'weighted', ordering: 'fifo' }), {
      message: 'fairness must be "none" with ordering "fifo" (it orders per channel), got "weighted"',
      option: 'fairness',
      value: 'weighted',
    });
    expectOptionError(() => resolveOptions({ rate: '1/1s', weight: () => 1 }), {
      message: 'weight must be undefined unless fairness is "weighted", got a function',
      option: 'weight',
      value: expect.any(Function),
    });
    expectOptionError(() => resolveOptions({ rate: '1/1s', fairness: 'weighted', weight: 2 as never }), {
      message: 'weight must be a function (key) => number, got 2',
      option: 'weight',
      value: 2,
    });
  });
});
