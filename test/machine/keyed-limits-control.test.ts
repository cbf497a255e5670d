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
