import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

describe('timer strategy: the Akka TimerBasedThrottler spec', () => {
  it('3/1s with 7 messages queued at once: 1-3 at once, 4-6 one interval later, 7 after two', () => {
    const target = createRecorder<Numbered>();
    const throttler = createActor(throttlerMachine, { input: { rate: '3/1s' } }).start();
    throttler.send({ type: 'SET_TARGET', target: target.ref });
    for (let n = 1; n <= 7; n++) throttler.send({ type: 'QUEUE', message: msg(n) });

    expect(target.received).toEqual([
      { message: msg(1), at: 0 },
      { message: msg(2), at: 0 },
      { message: msg(3), at: 0 },
    ]);
    advance(999);
    expect(target.received).toHaveLength(3);
    advance(1);
    expect(target.times()).toEqual([0, 0, 0, 1000, 1000, 1000]);
    advance(999);
    expect(target.received).toHaveLength(6);
    advance(1);
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 1000],
      [5, 1000],
      [6, 1000],
      [7, 2000],
    ]);
    // Nothing waits: idle at once with no timer, though the voucher period of the latest delivery
    // runs until 3000 (a timer only to end it would keep a process alive for nothing).
    expect(throttler.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    advance(1000);
    expect(throttler.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    advance(10_000);
    expect(target.received).toHaveLength(7);
  });
});
