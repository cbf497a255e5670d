import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { restoreThrottler, ThrottlerOptionError } from '../../src/index.js';
import { startKeyed } from '../support/keyed.js';
import { createRecorder, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** A saved snapshot: plain JSON, damaged on purpose below. */
type Saved = any;

function catchError(fn: () => unknown): ThrottlerOptionError {
  try {
    fn();
  } catch (error) {
    return error as ThrottlerOptionError;
  }
  throw new Error('expected an error');
}

const saveOf = (actor: ReturnType<typeof startKeyed>['actor']): Saved =>
  JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));

describe('keyed limits across a restart (saved format "xstate-throttler/3")', () => {
  it("keeps every live key's window, its own rates, the template as changed, and messages waiting for keys", () => {
    const before = startKeyed({ keys: { rate: '3/1s', idleAfter: '1m' }, ordering: 'per-channel' });
    before.actor.send({ type: 'SET_RATE', rate: '1/1s', channel: '__proto__' });
    before.actor.send({ type: 'SET_RATE', rate: '2/1s', keyTemplate: true });
    for (let n = 0; n < 3; n++) before.queue(n, 'a');
    for (let n = 10; n < 12; n++) before.queue(n, '__proto__');
    advance(500);
    const saved = saveOf(before.actor);
    before.actor.stop();
    expect(saved.context.dispatcher.format).toBe('xstate-throttler/3');
    expect(saved.context.dispatcher.options.keys).toEqual({
      rates: [{ limit: 2, interval: 1_000 }],
      idleAfter: 60_000,
    });
    expect(
      saved.context.dispatcher.state.keys.map(([name, , rates]: [string, unknown, unknown]) => [name, rates]),
    ).toEqual([
      ['a', null],
      ['__proto__', [{ limit: 1, interval: 1_000 }]],
    ]);
    expect(before.deliveries()).toEqual([
      [0, 0],
      [1, 0],
      [10, 0],
    ]);

    const target = createRecorder<Numbered>();
    const restored = restoreThrottler(saved, { target: target.ref });
    restored.send({ type: 'QUEUE', message: { type: 'msg', n: 20 }, channel: 'new' });
    restored.send({ type: 'QUEUE', message: { type: 'msg', n: 21 }, channel: 'new' });
    restored.send({ type: 'QUEUE', message: { type: 'msg', n: 22 }, channel: 'new' });
    advance(2_000);
    // a's window still holds its two deliveries at 0, __proto__ keeps 1/1s, a new key takes the changed template.
    expect(target.received.map(({ message, at }) => [message.n, at])).toEqual([
      [20, 500],
      [21, 500],
      [2, 1_000],
      [11, 1_000],
      [22, 1_500],
    ]);
  });

  it('restores a snapshot of format "xstate-throttler/2" (written before keys existed)', () => {
    const before = startKeyed({ keys: undefined, channels: { search: '1/1s' } });
    before.queue(1, 'search');
    before.queue(2, 'search');
    const saved = saveOf(before.actor);
    before.actor.stop();
    saved.context.dispatcher.format = 'xstate-throttler/2';
    delete saved.context.dispatcher.options.keys;
    delete saved.context.dispatcher.state.keys;
    const target = createRecorder<Numbered>();
    restoreThrottler(saved, { target: target.ref });
    advance(1_000);
    expect(target.received.map(({ message, at }) => [message.n, at])).toEqual([[2, 1_000]]);
  });

  it("refuses damaged keys, naming the field's path and the value", () => {
    const base = startKeyed({ channels: { search: '1/1s' }, keys: { rate: '2/1s' } });
    base.queue(1, 'k');
    const good = saveOf(base.actor);
    base.actor.stop();
    const path = 'persisted.context.dispatcher.state.keys';
    const cases: Array<[(saved: Saved) => void, string, string, unknown]> = [
      [(s) => (s.context.dispatcher.state.keys = {}), path, 'an array of [name, state, rates or null] triples', {}],
      [
        (s) => (s.context.dispatcher.state.keys[0] = ['k']),
        `${path}[0]`,
        'a [name, state, rates or null] triple',
        ['k'],
      ],
      [
        (s) => (s.context.dispatcher.state.keys[0][0] = 'search'),
        `${path}[0][0]`,
        'a key name (not a configured channel), named once',
        'search',
      ],
      [
        (s) => (s.context.dispatcher.state.keys[0][0] = ''),
        `${path}[0][0]`,
        'a key name (not a configured channel), named once',
        '',
      ],
      [
        (s) => s.context.dispatcher.state.keys.push(structuredClone(s.context.dispatcher.state.keys[0])),
        `${path}[1][0]`,
        'a key name (not a configured channel), named once',
        'k',
      ],
      [
        (s) => (s.context.dispatcher.state.keys[0][2] = 'fast'),
        `${path}[0][2]`,
        'a rate such as "10/1s", "100/1m" or { limit, interval }',
        'fast',
      ],
      [(s) => (s.context.dispatcher.state.keys[0][1].deliveries = 'x'), `${path}[0][1].deliveries`, 'an array', 'x'],
      [
        (s) => (s.context.dispatcher.options.keys = null),
        path,
        'empty without the keys option',
        good.context.dispatcher.state.keys,
      ],
    ];
    for (const [damage, option, requirement, value] of cases) {
      const saved = structuredClone(good);
      damage(saved);
      const error = catchError(() => restoreThrottler(saved));
      expect(error).toBeInstanceOf(ThrottlerOptionError);
      expect([error.option, error.value]).toEqual([option, value]);
      expect(error.message.startsWith(`${option} must be ${requirement}, got `), error.message).toBe(true);
    }
  });
});
