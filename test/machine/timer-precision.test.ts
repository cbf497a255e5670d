/**
 * timerPrecision: 'exact' and preciseClock(). The machine arms its one timer
 * for the exact fractional delay instead of whole milliseconds rounded up, and
 * preciseClock keeps that delay: a native timer for all but the last
 * PRECISE_CLOCK_LEAD_MS, then event-loop turns until the moment. The clock's
 * own tests run on real timers and assert only that it never fires early and
 * that it can be cancelled (bounds on lateness are generous: the machine
 * running the tests may be busy); what it buys is measured in bench/ (W3).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  type Clock,
  createThrottler,
  PRECISE_CLOCK_LEAD_MS,
  preciseClock,
  restoreThrottler,
  throttlerMachine,
} from '../../src/index.js';
import { resolveOptions } from '../../src/machine/options.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder } from '../support/recorder.js';
import { restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

/** A clock that only records the delays it is asked for, and a time source moved by hand. */
function recordingClock() {
  const delays: number[] = [];
  const callbacks: Array<() => void> = [];
  const clock: Clock = {
    setTimeout(callback: () => void, timeout: number) {
      delays.push(timeout);
      callbacks.push(callback);
      return callbacks.length - 1;
    },
    clearTimeout() {},
  };
  return { clock, delays, callbacks };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('timerPrecision', () => {
  it("defaults to 'ms', accepts 'exact' and names a bad value", () => {
    expect(resolveOptions({ rate: '1/1s' }).timerPrecision).toBe('ms');
    expect(resolveOptions({ rate: '1/1s', timerPrecision: 'exact' }).timerPrecision).toBe('exact');
    expectOptionError(() => resolveOptions({ rate: '1/1s', timerPrecision: 'us' as never }), {
      message: 'timerPrecision must be "ms" or "exact", got "us"',
      option: 'timerPrecision',
      value: 'us',
    });
  });

  it.each([
    ['ms', 1000],
    ['exact', 999.75],
  ] as const)("with '%s' the wake-up is armed for %s ms", (timerPrecision, expectedDelay) => {
    let time = 0.25;
    const { clock, delays } = recordingClock();
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', timerPrecision, now: () => time, target: target.ref },
      clock,
    }).start();
    actor.send({ type: 'QUEUE', message: { type: 'first' } });
    time = 0.5;
    actor.send({ type: 'QUEUE', message: { type: 'second' } });
    // The first went at 0.25, so the second may go at 1000.25: armed at 0.5, that is 999.75 ms away.
    expect(delays).toEqual([expectedDelay]);
    actor.stop();
  });

  it("survives a persisted snapshot, and a snapshot saved before the option existed restores as 'ms'", () => {
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', timerPrecision: 'exact' },
    }).start();
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.options.timerPrecision).toBe('exact');
    const restored = restoreThrottler(saved);
    expect(restored.getSnapshot().context.dispatcher.wakesExactly).toBe(true);
    restored.stop();

    delete saved.context.dispatcher.options.timerPrecision;
    const older = restoreThrottler(saved);
    expect(older.getSnapshot().context.dispatcher.wakesExactly).toBe(false);
    older.stop();
  });
});

describe('preciseClock (real timers)', () => {
  it.each([0.3, 1.5, 5.25, 20.7])('never calls back before a %s ms timeout is over', async (timeout) => {
    const clock = preciseClock();
    const armedAt = performance.now();
    const firedAt = await new Promise<number>((resolve) => {
      clock.setTimeout(() => resolve(performance.now()), timeout);
    });
    expect(firedAt - armedAt).toBeGreaterThanOrEqual(timeout);
    // Generous: a busy test machine may be late, but not by a tenth of a second.
    expect(firedAt - armedAt).toBeLessThan(timeout + 100);
  });

  it('cancels a wake-up still on its native timer and one already taking event-loop turns', async () => {
    const clock = preciseClock();
    let fired = 0;
    const far = clock.setTimeout(() => fired++, 30);
    const near = clock.setTimeout(() => fired++, PRECISE_CLOCK_LEAD_MS / 2);
    clock.clearTimeout(far);
    clock.clearTimeout(near);
    await sleep(60);
    expect(fired).toBe(0);
  });

  it('keeps to the time source it is given: nothing fires until that source reaches the moment', async () => {
    let time = 0;
    const clock = preciseClock(() => time);
    let fired = false;
    clock.setTimeout(() => {
      fired = true;
    }, 10);
    await sleep(30);
    expect(fired).toBe(false);
    time = 10;
    await sleep(5);
    expect(fired).toBe(true);
  });

  it("is what createThrottler arms its timer on with timerPrecision 'exact' (same time source)", async () => {
    let time = 0;
    const throttler = createThrottler({
      rate: '1/10ms',
      strategy: 'sliding-window',
      timerPrecision: 'exact',
      now: () => time,
    });
    const startedAt: number[] = [];
    const both = Promise.all([
      throttler.schedule(() => startedAt.push(time)),
      throttler.schedule(() => startedAt.push(time)),
    ]);
    await sleep(30);
    // The native timer has long fired; the wake-up waits on the given source, which has not moved.
    expect(startedAt).toEqual([0]);
    time = 9.5;
    await sleep(10);
    expect(startedAt).toEqual([0]);
    time = 10;
    await both;
    expect(startedAt).toEqual([0, 10]);
    throttler.stop();
  });
});
