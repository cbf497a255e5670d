import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlidingWindowPolicy, VoucherTimerPolicy } from '../../src/policies/index.js';
import { startKeyed } from '../support/keyed.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(() => {
  vi.restoreAllMocks();
  restoreRealTime();
});

/** Keyed limits: SET_RATE for one key and for the template, and activation with many keys (virtual time). */

describe('SET_RATE and keys', () => {
  it('gives one key rates of its own; the others keep the template', () => {
    const { actor, queue, deliveries } = startKeyed({ keys: { rate: '3/1s' }, ordering: 'per-channel' });
    actor.send({ type: 'SET_RATE', rate: '1/1s', channel: 'slow' });
    for (let n = 0; n < 3; n++) queue(n, 'slow');
    for (let n = 10; n < 13; n++) queue(n, 'fast');
    advance(2_000);
    expect(deliveries()).toEqual([
      [0, 0],
      [10, 0],
      [11, 0],
      [12, 0],
      [1, 1_000],
      [2, 2_000],
    ]);
  });

  it('with keyTemplate: true changes every live key without rates of its own at once, and every later key', () => {
    const { actor, queue, deliveries, savedKeys } = startKeyed({ keys: { rate: '1/1s' }, ordering: 'per-channel' });
    actor.send({ type: 'SET_RATE', rate: '1/1s', channel: 'own' });
    queue(1, 'live');
    queue(2, 'live');
    queue(3, 'own');
    queue(4, 'own');
    actor.send({ type: 'SET_RATE', rate: '2/1s', keyTemplate: true });
    queue(5, 'new');
    queue(6, 'new');
    advance(1_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [3, 0],
      [2, 0],
      [5, 0],
      [6, 0],
      [4, 1_000],
    ]);
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    expect(saved.context.dispatcher.options.keys).toEqual({ rates: [{ limit: 2, interval: 1_000 }], idleAfter: 0 });
    expect(savedKeys().get('own')).toEqual([{ limit: 1, interval: 1_000 }]);
  });

  it('refuses a keyTemplate that is not true, one beside a channel, and one without the keys option', () => {
    const { actor, events } = startKeyed();
    actor.send({ type: 'SET_RATE', rate: '1/1s', keyTemplate: 'yes' as never });
    actor.send({ type: 'SET_RATE', rate: '1/1s', keyTemplate: true, channel: 'a' });
    actor.send({ type: 'SET_RATE', rate: 'fast', keyTemplate: true });
    const plain = startKeyed({ keys: undefined });
    plain.actor.send({ type: 'SET_RATE', rate: '1/1s', keyTemplate: true });
    const messages = [...events('invalidEvent'), ...plain.events('invalidEvent')].map((event) => event.error.message);
    expect(messages).toEqual([
      'keyTemplate must be true (the keys\' template rate) or left out, got "yes"',
      'channel must be a channel or key name, left out with keyTemplate, got "a"',
      expect.stringMatching(/^keys\.rate must be /),
      'keyTemplate must be sent only to a throttler with the keys option, got true',
    ]);
  });
});

describe('activation with many keys', () => {
  it('calls no policy on activation unless the strategy starts periods (sliding window: none)', () => {
    const activate = vi.spyOn(SlidingWindowPolicy.prototype, 'activate');
    const { queue, liveKeys } = startKeyed({ keys: { rate: '1/1s', idleAfter: '1h' } });
    for (let n = 0; n < 1_000; n++) {
      queue(n, `key-${n}`);
      queue(n, `key-${n}`);
    }
    advance(1_000);
    expect(liveKeys()).toBe(1_000);
    expect(activate).not.toHaveBeenCalled();
  });

  it('timer strategy: activation reaches a key at its next use, which is when its period starts', () => {
    const activate = vi.spyOn(VoucherTimerPolicy.prototype, 'activate');
    const { queue, deliveries } = startKeyed({ strategy: 'timer', keys: { rate: '2/1s', idleAfter: '1h' } });
    for (let n = 0; n < 100; n++) queue(n, `key-${n}`);
    expect(deliveries()).toHaveLength(100);
    advance(10_000);
    activate.mockClear();
    // Idle for 10 s: each activation reaches the overall policy and the one key used now, never the 99 others.
    queue(200, 'key-7');
    queue(201, 'key-7');
    queue(202, 'key-7');
    expect(new Set(activate.mock.contexts).size).toBe(2);
    advance(1_000);
    expect(deliveries().slice(-3)).toEqual([
      [200, 10_000],
      [201, 10_000],
      [202, 11_000],
    ]);
  });
});

describe('keys created by SET_RATE and never used', () => {
  it('are forgotten once idle past idleAfter, whatever their own interval, under traffic without keys too', () => {
    const { actor, queue, liveKeys } = startKeyed({ keys: { rate: '1/1s', idleAfter: '5s' }, rate: '1000/1s' });
    for (let n = 0; n < 1_000; n++) actor.send({ type: 'SET_RATE', rate: '100/1d', channel: `never-${n}` });
    expect(liveKeys()).toBe(1_000);
    // Traffic on no key at all: each delivery looks at a few of the oldest keys.
    for (let n = 0; n < 400; n++) {
      queue(n);
      advance(10);
    }
    expect(liveKeys()).toBe(1_000); // 4 s: not idle past idleAfter yet
    for (let n = 400; n < 1_000; n++) {
      queue(n);
      advance(10);
    }
    expect(liveKeys()).toBe(0);
  });

  it('hold memory bounded by the SET_RATEs of the last idleAfter: 30,000 keys, 20 a ms, at most about 5,000 live', () => {
    const { actor, queue, liveKeys } = startKeyed({ keys: { rate: '1/100ms', idleAfter: '250ms' }, rate: '1000/1s' });
    let most = 0;
    for (let ms = 0; ms < 1_500; ms++) {
      for (let k = 0; k < 20; k++) actor.send({ type: 'SET_RATE', rate: '100/1d', channel: `key-${ms}-${k}` });
      queue(ms);
      most = Math.max(most, liveKeys());
      advance(1);
    }
    expect(most).toBeLessThanOrEqual(20 * 252);
    expect(liveKeys()).toBeLessThanOrEqual(20 * 252);
  });

  it('a key that delivered keeps its own rates as long as its window holds a delivery', () => {
    const { actor, queue, liveKeys, deliveries } = startKeyed({ keys: { rate: '5/1s' }, rate: '1000/1s' });
    actor.send({ type: 'SET_RATE', rate: '1/1m', channel: 'daily' });
    queue(1, 'daily');
    for (let n = 0; n < 300; n++) {
      queue(100 + n);
      advance(100);
    }
    // 30 s later, with traffic all along: the key is kept (its minute holds a delivery), its rate with it.
    expect(liveKeys()).toBe(1);
    queue(2, 'daily');
    advance(30_000);
    expect(deliveries().filter(([n]) => n === 1 || n === 2)).toEqual([
      [1, 0],
      [2, 60_000],
    ]);
  });
});
