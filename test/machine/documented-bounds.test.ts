/**
 * Two claims of the docs (docs/priorities.md, docs/keyed-limits.md) checked as stated (issue 22):
 * `maxPriorityWait` bounds how far a later message of higher priority can overtake a waiting one, not
 * how long that one waits (maxWait does); and a key's length limit counts UTF-16 code units
 * (JavaScript's `length`), not characters.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type ThrottlerEmitted, throttlerMachine } from '../../src/index.js';
import { startKeyed } from '../support/keyed.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

describe('maxPriorityWait bounds overtaking, not waiting', () => {
  /**
   * 10 a second, and a flood of priority 9 at 100 a second (ten times the rate) from 0 to 12 s. One
   * message of priority 0 arrives at 500 ms. With maxPriorityWait 9 s (a level is worth 1 s), every
   * flood message that arrives before 9500 ms overtakes it; the one at 9500 ties and goes after it.
   */
  function flood(low: { maxWait?: number }) {
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, {
      input: { strategy: 'sliding-window', rate: '10/1s', maxPriorityWait: 9_000, target: target.ref },
    });
    const dropped: Array<Extract<ThrottlerEmitted, { type: 'dropped' }>> = [];
    actor.on('dropped', (event) => dropped.push(event));
    actor.start();
    const LOW = 0;
    for (let at = 0; at < 12_000; at += 10) {
      actor.send({ type: 'QUEUE', message: msg(at + 1), priority: 9 });
      if (at === 500) actor.send({ type: 'QUEUE', message: msg(LOW), priority: 0, ...low });
      advance(10);
    }
    advance(120_000);
    const order = target.received.map((received) => received.message.n - 1);
    return { target, dropped, order, low: target.received.find((received) => received.message.n === LOW) };
  }

  it('a message of priority 0 waits about ten times maxPriorityWait under a flood ten times the rate', () => {
    const { low, order } = flood({});
    // 950 flood messages (arrived at 0..9490 ms) went first: at 10 a second, 95 s.
    expect(low?.at).toBe(95_000);
    const before = order.slice(0, order.indexOf(-1));
    expect(before).toHaveLength(950);
    expect(Math.max(...before)).toBe(9_490);
    // Nothing that arrived maxPriorityWait (9 s) or more after it went before it.
    expect(order[order.indexOf(-1) + 1]).toBe(9_500);
  });

  it('maxWait bounds the wait: the message is dropped as expired at its deadline instead', () => {
    const { low, dropped } = flood({ maxWait: 9_000 });
    expect(low).toBeUndefined();
    expect(dropped.map((event) => [event.message, event.reason])).toEqual([[msg(0), 'expired']]);
  });
});

describe('a key is at most 1024 UTF-16 code units', () => {
  it('counts a character outside the Basic Multilingual Plane (an emoji) as two', () => {
    const { queue, deliveries, events } = startKeyed();
    const emoji = '\u{1F600}';
    expect(emoji.length).toBe(2);
    queue(1, emoji.repeat(512)); // 512 characters, 1024 code units: a key
    queue(2, emoji.repeat(513)); // 513 characters, 1026 code units: too long
    queue(3, 'é'.repeat(1_024)); // 1024 characters of the BMP (2048 bytes in UTF-8): a key
    expect(deliveries().map(([n]) => n)).toEqual([1, 3]);
    expect(events('rejected').map(({ reason, error }) => [reason, error.option])).toEqual([['invalid', 'channel']]);
  });
});
