/**
 * timerPrecision: 'exact' and preciseClock(). The machine arms its one timer
 * for the exact fractional delay instead of whole milliseconds rounded up, and
 * preciseClock keeps that delay: a native timer for all but the last
 * PRECISE_CLOCK_LEAD_MS, then event-loop turns until the moment. The clock's
 * own tests run on real timers and assert only that it never fires early and
 * that it can be cancelled (bounds on lateness are generous: the machine
 * running the tests may be busy); what it buys is measured in bench/ (W3).
 * They run once with the runtime's own globals and once each without
 * setImmediate (as in browsers: MessageChannel turns) and without either (a
 * timer per turn); the browser project runs them in real Chromium too.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { resolveOptions } from '../../src/engine/options/options.js';
import { createThrottler, preciseClock, restoreThrottler, throttlerMachine } from '../../src/index.js';
import { PRECISE_CLOCK_LEAD_MS } from '../../src/machine/precise-clock.js';
import type { Clock } from '../../src/machine/types.js';
import { machineContext } from '../support/machine-context.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder } from '../support/recorder.js';
import { restoreRealTime } from '../support/virtual-time.js';

afterEach(() => {
  restoreRealTime();
  vi.unstubAllGlobals();
});

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
    expect(machineContext(restored).dispatcher.wakesExactly).toBe(true);
    restored.stop();

    delete saved.context.dispatcher.options.timerPrecision;
    const older = restoreThrottler(saved);
    expect(machineContext(older).dispatcher.wakesExactly).toBe(false);
    older.stop();
  });
});

/** The event-loop turns preciseClock can take, from the runtime's own down to a timer per turn. */
const runtimes = [
  ['the runtime', {}],
  ['no setImmediate (a browser)', { setImmediate: undefined, clearImmediate: undefined }],
  [
    'neither setImmediate nor MessageChannel',
    { setImmediate: undefined, clearImmediate: undefined, MessageChannel: undefined },
  ],
] as const;

describe.each(runtimes)('preciseClock (real timers) with the turns of %s', (_name, globals) => {
  beforeEach(() => {
    for (const [name, value] of Object.entries(globals)) vi.stubGlobal(name, value);
  });

  it.each([0.3, 1.5, 5.25, 20.7])('never calls back before a %s ms timeout is over', async (timeout) => {
    const clock = preciseClock();
    const armedAt = performance.now();
    const firedAt = await new Promise<number>((resolve) => {
      clock.setTimeout(() => resolve(performance.now()), timeout);
    });
    expect(firedAt - armedAt).toBeGreaterThanOrEqual(timeout);
    // A guard against a wake-up that never comes on time, not a measure: beside a second npm test a busy
    // machine was 122 ms late (W3 in bench/ measures the lateness).
    expect(firedAt - armedAt).toBeLessThan(timeout + 1_000);
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

describe('preciseClock without setImmediate (a browser)', () => {
  it('takes its event-loop turns on one MessageChannel per wake-up, closed when it fires or is cancelled', async () => {
    vi.stubGlobal('setImmediate', undefined);
    vi.stubGlobal('clearImmediate', undefined);
    const opened: MessageChannel[] = [];
    const closed = new Set<MessagePort>();
    const Native = MessageChannel;
    vi.stubGlobal(
      'MessageChannel',
      class extends Native {
        constructor() {
          super();
          opened.push(this);
          for (const port of [this.port1, this.port2]) {
            const close = port.close.bind(port);
            port.close = () => {
              closed.add(port);
              close();
            };
          }
        }
      },
    );
    let time = 0;
    const clock = preciseClock(() => time);
    let fired = 0;
    clock.setTimeout(() => fired++, 1);
    const cancelled = clock.setTimeout(() => fired++, 1);
    await sleep(20); // many turns, each a message on the same channel
    expect(opened).toHaveLength(2);
    clock.clearTimeout(cancelled);
    time = 1;
    await sleep(20);
    expect(fired).toBe(1);
    expect([...closed]).toHaveLength(4);
  });
});
