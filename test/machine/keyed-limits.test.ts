import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveOptions } from '../../src/engine/options/options.js';
import { createPolicy, STRATEGIES } from '../../src/policies/index.js';
import { startKeyed } from '../support/keyed.js';

const resolveWith = (extra: Record<string, unknown>) => resolveOptions({ rate: '10/1s', ...extra } as never);

import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(() => {
  vi.restoreAllMocks();
  restoreRealTime();
});

describe('keyed limits: a template rate for keys that appear at run time', () => {
  it('gives every key a window of its own at the template rate, under the overall rate', () => {
    const { queue, deliveries } = startKeyed({ rate: '3/1s', ordering: 'per-channel' });
    for (const [n, key] of [
      [1, 'a'],
      [2, 'a'],
      [3, 'a'],
      [4, 'b'],
      [5, 'b'],
    ] as const)
      queue(n, key);
    advance(3_000);
    // a and b 2/1s each, 3/1s overall: a3 waits for a's window, b5 for the overall one.
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [4, 0],
      [3, 1_000],
      [5, 1_000],
    ]);
  });

  it("keeps arrival order across keys with 'fifo': a saturated key holds back the ones behind it", () => {
    const { queue, deliveries } = startKeyed();
    queue(1, 'a');
    queue(2, 'a');
    queue(3, 'a');
    queue(4, 'b');
    advance(2_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 1_000],
      [4, 1_000],
    ]);
  });

  it('reads a name in `channels` as that channel and any other name as a key', () => {
    const { queue, deliveries } = startKeyed({
      channels: { search: '1/1s' },
      keys: { rate: '5/1s' },
      ordering: 'per-channel',
    });
    queue(1, 'search');
    queue(2, 'search');
    queue(3, 'Search');
    queue(4, 'Search');
    advance(1_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [3, 0],
      [4, 0],
      [2, 1_000],
    ]);
  });

  it('still refuses an unknown channel without the keys option', () => {
    const { queue, events } = startKeyed({ keys: undefined, channels: { search: '1/1s' } });
    queue(1, 'other');
    const [rejected] = events('rejected');
    expect(rejected).toMatchObject({ reason: 'invalid' });
    expect(rejected?.error.message).toBe('channel must be one of "search", got "other"');
  });

  it('takes names as data: __proto__, constructor, toString and hasOwnProperty are keys like any other', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const { queue, deliveries, liveKeys } = startKeyed({ keys: { rate: '1/1s' }, ordering: 'per-channel' });
    names.forEach((name, index) => {
      queue(index, name);
      queue(10 + index, name);
    });
    expect(liveKeys()).toBe(4);
    advance(1_000);
    expect(deliveries()).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 0],
      [10, 1_000],
      [11, 1_000],
      [12, 1_000],
      [13, 1_000],
    ]);
  });

  it('rejects a key that is not a non-empty string of at most 1024 characters, naming the field and the value, and runs on', () => {
    const { actor, queue, deliveries, events } = startKeyed();
    const huge = 'k'.repeat(1_000_000);
    const hostile: unknown[] = [42, { id: 1 }, null, '', 'x'.repeat(1_025), huge];
    for (const [n, key] of hostile.entries()) queue(n, key);
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: { type: 'msg', n: 90 }, channel: huge as string }] });
    queue(99, 'y'.repeat(1_024));
    const rejected = events('rejected');
    expect(rejected.map(({ reason, error }) => [reason, error.option, error.value])).toEqual(
      [...hostile, huge].map((key) => ['invalid', 'channel', key]),
    );
    const message = rejected.at(-1)?.error.message;
    expect(message).toBe(
      `channel must be a key (a non-empty string of at most 1024 characters), got "${'k'.repeat(60)}"... (1000000 characters)`,
    );
    expect(deliveries()).toEqual([[99, 0]]);
    expect(actor.getSnapshot().context.counts).toMatchObject({ rejected: 7, delivered: 1 });
  });

  it('refuses hostile keys in SET_RATE, SETTLED and TRY_ACQUIRE with invalidEvent or a reply error', () => {
    const { actor, events } = startKeyed({ maxConcurrent: 5 });
    actor.send({ type: 'SET_RATE', rate: '1/1s', channel: '' });
    actor.send({ type: 'SET_RATE', rate: '1/1s', channel: 7 as never });
    actor.send({ type: 'SETTLED', channel: 'z'.repeat(2_000) });
    const reply: { waitMs?: number; error?: Error } = {};
    actor.send({ type: 'TRY_ACQUIRE', channel: '', reply });
    expect(events('invalidEvent').map((event) => event.error.option)).toEqual(['channel', 'channel', 'SETTLED']);
    expect(reply.error?.message).toMatch(/^channel must be a key/);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it('refuses a bad keys option, naming the field and the value', () => {
    const cases: Array<[unknown, string]> = [
      ['5/1s', 'keys must be an object { rate, idleAfter? }, e.g. { rate: "5/1s", idleAfter: "5m" }, got "5/1s"'],
      [{ rate: 'fast' }, 'keys.rate must be a rate such as "10/1s", "100/1m" or { limit, interval }, got "fast"'],
      [{ rate: '5/1s', idleAfter: -1 }, 'keys.idleAfter must be a positive, finite duration in milliseconds, got -1'],
      [
        { rate: '5/1s', idleAfter: 'soon' },
        'keys.idleAfter must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "soon"',
      ],
    ];
    for (const [keys, message] of cases) {
      expect(() => resolveWith({ keys })).toThrow(message);
    }
  });

  it('lets every fresh policy allow its first delivery at once (what a key that is not live answers)', () => {
    for (const strategy of STRATEGIES) {
      const policy = createPolicy(strategy, [{ limit: 3, interval: 1_000 }], { warmup: 3_000, coldFactor: 3 }, 500);
      expect(policy.earliestDelivery(800, 3), strategy).toBe(800);
    }
  });
});

describe('forgetting a key', () => {
  it('forgets it once idle longer than idleAfter, not sooner, when other keys are used', () => {
    const { queue, liveKeys, savedKeys } = startKeyed({ keys: { rate: '2/1s', idleAfter: '5s' } });
    queue(1, 'a');
    advance(5_000);
    queue(2, 'b');
    // Idle exactly 5 s: kept.
    expect([...savedKeys().keys()]).toEqual(['a', 'b']);
    advance(1);
    queue(3, 'c');
    expect([...savedKeys().keys()]).toEqual(['b', 'c']);
    expect(liveKeys()).toBe(2);
  });

  it('keeps it for its longest interval when that is longer than idleAfter (forgetting sooner could open a burst)', () => {
    const { queue, savedKeys } = startKeyed({ keys: { rate: ['1/1s', '2/10s'], idleAfter: '1s' } });
    queue(1, 'a');
    advance(10_000);
    queue(2, 'b');
    expect(savedKeys().has('a')).toBe(true);
    advance(1);
    queue(3, 'c');
    expect(savedKeys().has('a')).toBe(false);
  });

  it('keeps a key with longer rates of its own that long, without holding back the forgetting of the keys after it', () => {
    const { actor, queue, savedKeys } = startKeyed({ keys: { rate: '2/1s' } });
    actor.send({ type: 'SET_RATE', rate: '1/10s', channel: 'long' });
    queue(0, 'long');
    advance(2_000);
    queue(1, 'early');
    advance(1_001);
    for (let n = 2; n < 6; n++) queue(n, `late-${n}`);
    // 'early' is forgotten although 'long', older, stays (moved to the back as it lingers).
    expect([...savedKeys().keys()].sort()).toEqual(['late-2', 'late-3', 'late-4', 'late-5', 'long']);
    advance(7_000);
    for (let n = 6; n < 12; n++) queue(n, `later-${n}`);
    expect(savedKeys().has('long')).toBe(false);
  });

  it('never forgets a key while a message waits for it', () => {
    // The overall rate holds a's message for 10 s; other keys come and go meanwhile.
    const { actor, queue, deliveries, savedKeys } = startKeyed({ rate: '1/10s', keys: { rate: '1/1s' } });
    queue(0);
    queue(1, 'a');
    actor.send({ type: 'SET_RATE', rate: '3/1s', channel: 'a' });
    for (let n = 2; n < 10; n++) {
      advance(1_000);
      queue(n, `other-${n}`);
    }
    expect(savedKeys().get('a')).toEqual([{ limit: 3, interval: 1_000 }]);
    advance(2_000);
    expect(deliveries()).toEqual([
      [0, 0],
      [1, 10_000],
    ]);
  });

  it('never forgets a key while a delivery is in flight for it', () => {
    const { actor, queue, savedKeys } = startKeyed({ maxConcurrent: 1, keys: { rate: '1/100ms' } });
    queue(1, 'a');
    for (let n = 2; n < 6; n++) {
      advance(1_000);
      queue(n, `other-${n}`);
    }
    expect(savedKeys().has('a')).toBe(true);
    actor.send({ type: 'SETTLED', channel: 'a' });
    advance(1_000);
    actor.send({ type: 'SETTLED', channel: 'other-2' });
    advance(1_000);
    queue(9, 'late');
    expect(savedKeys().has('a')).toBe(false);
  });

  it('forgets a key with its own rate: it comes back at the template rate', () => {
    const { actor, queue, deliveries, savedKeys } = startKeyed({ keys: { rate: '5/1s', idleAfter: '2s' } });
    actor.send({ type: 'SET_RATE', rate: '1/1s', channel: 'a' });
    queue(1, 'a');
    queue(2, 'a');
    advance(1_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 1_000],
    ]);
    advance(2_001);
    queue(3, 'b');
    expect(savedKeys().has('a')).toBe(false);
    for (let n = 4; n < 7; n++) queue(n, 'a');
    expect(deliveries().slice(-3)).toEqual([
      [4, 3_001],
      [5, 3_001],
      [6, 3_001],
    ]);
  });
});
