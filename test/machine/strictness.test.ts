import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type StrategyName, type ThrottlerEvent, throttlerMachine } from '../../src/index.js';
import { type RateConfig, worstWindows } from '../support/oracle.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const THREE_PER_SECOND: RateConfig = { overall: [{ limit: 3, interval: 1000 }], channels: {} };

/** One step of a schedule: wait `after` ms, then send the events. */
interface Step {
  readonly after: number;
  readonly send: readonly ThrottlerEvent[];
}

const queue = (n: number): ThrottlerEvent => ({ type: 'QUEUE', message: msg(n) });

/** Runs the same schedule through a fresh 3/1s throttler of the given strategy; returns the delivery times. */
function deliveryTimes(strategy: StrategyName, schedule: readonly Step[]): number[] {
  restoreRealTime();
  useVirtualTime();
  const target = createRecorder<Numbered>();
  const throttler = createActor(throttlerMachine, { input: { rate: '3/1s', strategy, target: target.ref } }).start();
  for (const step of schedule) {
    advance(step.after);
    for (const event of step.send) throttler.send(event);
  }
  advance(5_000);
  throttler.stop();
  return target.times();
}

/** The fullest window [t, t + 1000) of a run, by the oracle's brute-force check. */
function fullestSecond(times: readonly number[]): number {
  const [worst] = worstWindows(
    THREE_PER_SECOND,
    times.map((at) => ({ at, cost: 1, channel: undefined })),
  );
  return worst?.cost ?? 0;
}

describe('strictness: the same schedule through the timer and the sliding window at 3/1s', () => {
  it('a period that starts unused lets the timer put 6 in one second (3 just before its tick, 3 at it); the sliding window never more than 3', () => {
    // Paused until 999: the timer's first period starts at activation (0) with its
    // vouchers unspent, so they all go at 999 and the tick at 1000 brings 3 more.
    const schedule: Step[] = [
      {
        after: 0,
        send: [{ type: 'PAUSE', duration: 999 }, queue(1), queue(2), queue(3), queue(4), queue(5), queue(6)],
      },
    ];

    const timer = deliveryTimes('timer', schedule);
    expect(timer).toEqual([999, 999, 999, 1000, 1000, 1000]);
    expect(fullestSecond(timer)).toBe(6);

    const slidingWindow = deliveryTimes('sliding-window', schedule);
    expect(slidingWindow).toEqual([999, 999, 999, 1999, 1999, 1999]);
    expect(fullestSecond(slidingWindow)).toBe(3);
  });

  it('with plain arrivals (1 at 0, 5 at 999) the timer puts 5 in one second; the sliding window spreads them to stay at 3', () => {
    const schedule: Step[] = [
      { after: 0, send: [queue(1)] },
      { after: 999, send: [queue(2), queue(3), queue(4), queue(5), queue(6)] },
    ];

    const timer = deliveryTimes('timer', schedule);
    expect(timer).toEqual([0, 999, 999, 1000, 1000, 1000]);
    expect(fullestSecond(timer)).toBe(5);

    // 4 goes the moment 1 leaves the window, 5 and 6 the moment the pair at 999 does: no fixed spacing.
    const slidingWindow = deliveryTimes('sliding-window', schedule);
    expect(slidingWindow).toEqual([0, 999, 999, 1000, 1999, 1999]);
    expect(fullestSecond(slidingWindow)).toBe(3);
  });
});
