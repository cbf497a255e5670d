import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { resolveOptions } from '../../src/engine/options/options.js';
import { createThrottler, restoreThrottler, throttlerMachine } from '../../src/index.js';
import { throttlerMachine as leanThrottlerMachine, transit } from '../../src/lean/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { createMemoryStore } from '../../src/store/index.js';
import { slidingWindow } from '../../src/strategies/index.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const ping = { type: 'QUEUE', message: { type: 'ping' } } as const;

describe('the transit option', () => {
  it('resolves a duration, "measured", { measure, max } and 0', () => {
    expect(resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: '150ms' }).transit).toBe(150);
    expect(resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: 0 }).transit).toBe(0);
    const measured = resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: 'measured' });
    expect(measured.transit).toEqual({ measure: true });
    expect(measured.transitMeter).toBeDefined();
    expect(
      resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: { measure: true, max: '2s' } }).transit,
    ).toEqual({ measure: true, max: 2000 });
  });

  it('refuses a bad value, an unknown field and a measure that is not true, by name', () => {
    const requirement =
      'transit must be a duration (the uplink\'s spread, e.g. "150ms"), "measured", { measure: true, max?: duration } or 0';
    expectOptionError(() => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: -5 }), {
      message: `${requirement}, got -5`,
      option: 'transit',
      value: -5,
    });
    expectOptionError(() => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: [] as never }), {
      message: `${requirement}, got an array of 0`,
      option: 'transit',
      value: [],
    });
    expectOptionError(() => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: 'soon' }), {
      message: 'transit must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "soon"',
      option: 'transit',
      value: 'soon',
    });
    expectOptionError(
      () => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: { measure: true, most: 5 } as never }),
      {
        message: 'transit.most must be absent: transit takes measure and max, got 5',
        option: 'transit.most',
        value: 5,
      },
    );
    expectOptionError(
      () => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: { measure: false } as never }),
      {
        message: 'transit.measure must be true (a stated spread is a duration), got false',
        option: 'transit.measure',
        value: false,
      },
    );
    expectOptionError(
      () => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', transit: { measure: true, max: 0 } }),
      {
        message: 'transit.max must be a positive, finite duration in milliseconds, got 0',
        option: 'transit.max',
        value: 0,
      },
    );
  });

  it('is refused by timer and warming-up, saying why', () => {
    for (const strategy of ['timer', 'warming-up'] as const) {
      let message = '';
      try {
        resolveOptions({ rate: '2/1s', strategy, warmup: '1s', transit: '100ms' });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(new RegExp(`^transit must be 0 or absent with strategy "${strategy}": `));
    }
  });

  it('is refused by a token bucket it would leave with less than one permit', () => {
    // 10 per second over 950 ms is 9.5 permits: 10 - 9.5 leaves half of one.
    expectOptionError(() => resolveOptions({ rate: '10/1s', strategy: 'token-bucket', transit: 950 }), {
      message:
        'transit must be a spread that leaves the token bucket at least one permit (maxBurst 10 less 10 per 1000 ms over the spread leaves 0.5): at most 900 ms, got 950',
      option: 'transit',
      value: 950,
    });
    expect(resolveOptions({ rate: '10/1s', strategy: 'token-bucket', transit: 900 }).transit).toBe(900);
  });

  it('measured is refused by the machine input, a restore, throttleQueue and a store, by name', () => {
    const target = createRecorder().ref;
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/1s', strategy: 'sliding-window', transit: 'measured', target },
    });
    actor.subscribe({ error: () => {} });
    actor.start();
    expect(actor.getSnapshot().status).toBe('error');
    expect((actor.getSnapshot().error as Error).message).toMatch(
      /^transit must be a duration or 0 for the throttler input: "measured" needs createThrottler/,
    );
    expect(() => throttleQueue({ rate: '2/1s', strategy: 'sliding-window', transit: 'measured' })).toThrow(
      /transit must be a duration or 0 for throttleQueue/,
    );
    expect(() =>
      createThrottler({
        rate: '2/1s',
        strategy: 'sliding-window',
        transit: 'measured',
        store: createMemoryStore({ name: 'transit' }),
      }),
    ).toThrow(/transit must be a duration or 0 with a store: every process widens/);
  });

  it('stated with a store is kept by a sliding window only, and refused by name by its token bucket', () => {
    const store = createMemoryStore({ name: 'transit-bucket' });
    expect(() => createThrottler({ rate: '4/1s', strategy: 'token-bucket', transit: 100, store })).toThrow(
      /^transit must be 0 with a shared store unless strategy is "sliding-window"/,
    );
    createThrottler({ rate: '4/1s', strategy: 'sliding-window', transit: 100, store }).stop();
  });

  it("widens every window of the machine by J, the lean one too; the rates saved are the user's", () => {
    // The lean machine reads `transit` with the transit feature only (test/lean/features.test.ts).
    for (const [machine, strategy, features] of [
      [throttlerMachine, 'sliding-window', []],
      [leanThrottlerMachine, slidingWindow, [transit]],
    ] as const) {
      const recorder = createRecorder();
      const actor = createActor(machine as typeof throttlerMachine, {
        input: { rate: '2/1s', strategy: strategy as never, transit: '250ms', target: recorder.ref, features },
      }).start();
      for (let index = 0; index < 6; index += 1) actor.send(ping);
      advance(5_000);
      expect(recorder.times().map((at) => Math.round(at))).toEqual([0, 0, 1250, 1250, 2500, 2500]);
      // The rates the user sees stay the user's.
      const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
      expect(saved.context.dispatcher.options.rates).toEqual([{ limit: 2, interval: 1000 }]);
      actor.stop();
      restoreRealTime();
      useVirtualTime();
    }
  });

  it('is saved in a snapshot and restored with it, and a damaged one is refused by name', () => {
    const recorder = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', transit: 400, target: recorder.ref },
    }).start();
    actor.send(ping);
    actor.send(ping);
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.options.transit).toBe(400);
    expect(saved.context.dispatcher.options.strategyOptions.transit).toBeUndefined();
    const after = createRecorder();
    const restored = restoreThrottler(saved, { target: after.ref });
    advance(3_000);
    // The one sent at 0 holds its window 1000 + 400 ms.
    expect(after.times().map((at) => Math.round(at))).toEqual([1400]);
    restored.stop();
    saved.context.dispatcher.options.transit = 'later';
    expect(() => restoreThrottler(saved, { target: createRecorder().ref })).toThrow(
      /^transit must be a duration such as 500ms/,
    );
    saved.context.dispatcher.options.transit = { measure: true };
    expect(() => restoreThrottler(saved, { target: createRecorder().ref })).toThrow(
      /transit must be a duration or 0 for a restored throttler/,
    );
  });

  it('keeps a delivery settleable J past its longest interval: an overrun told then still holds the widened window', () => {
    const recorder = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', strategy: 'sliding-window', transit: 500, target: recorder.ref },
    }).start();
    actor.send({ type: 'QUEUE', message: { type: 'ping' }, id: 'a' });
    advance(1_200);
    actor.send({ type: 'ACTUAL_COST', id: 'a', cost: 10 });
    actor.send(ping);
    advance(1_000);
    // The overrun at 0 fills the window until 0 + 1000 + 500.
    expect(recorder.times().map((at) => Math.round(at))).toEqual([0, 1500]);
    actor.stop();
  });
});
