/**
 * `pace` (src/policies/pacing.ts): a sliding window's worth spread over the window. The spacing by hand,
 * its give-backs and catch-up, the sliding window that reads it, and the option checked by name. The
 * server-side guarantee with pace is a property (test/properties/transit.property.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { resolveOptions } from '../../src/engine/options/options.js';
import { createThrottler, restoreThrottler, throttlerMachine } from '../../src/index.js';
import { SlidingWindowPolicy, type TransitSpread } from '../../src/policies/index.js';
import { Pacing } from '../../src/policies/pacing.js';
import { createMemoryStore } from '../../src/store/index.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const window10 = [{ limit: 10, interval: 1_000 }];
const spread = (ms: number): TransitSpread => ({ most: ms, spreadAt: () => ms });

describe('Pacing', () => {
  it('lets the first delivery go at once, then holds the next cost x span / limit', () => {
    const pacing = new Pacing(Number.POSITIVE_INFINITY);
    expect(pacing.earliest(0)).toBe(0);
    pacing.recorded(0, 2, window10);
    // 2 x 1000 / 10.
    expect(pacing.earliest(0)).toBe(200);
    expect(pacing.earliest(250)).toBe(250);
  });

  it('spreads over the interval, or over a stated span when shorter, the largest over the rates', () => {
    const short = new Pacing(400);
    short.recorded(0, 1, window10);
    expect(short.earliest(0)).toBe(40);
    const two = new Pacing(Number.POSITIVE_INFINITY);
    two.recorded(0, 1, [...window10, { limit: 100, interval: 60_000 }]);
    expect(two.earliest(0)).toBe(600);
  });

  it('catches up a late wake-up (up to two spacings) from the grid, and after idle lets three go at once', () => {
    const pacing = new Pacing(Number.POSITIVE_INFINITY);
    pacing.recorded(0, 1, window10);
    // Due at 100, sent at 130: the next is due at 200, not 230.
    pacing.recorded(130, 1, window10);
    expect(pacing.earliest(130)).toBe(200);
    // Idle until 1000: two spacings of credit, so 1000, 1000, 1000, then 1100.
    pacing.recorded(1_000, 1, window10);
    expect(pacing.earliest(1_000)).toBe(1_000);
    pacing.recorded(1_000, 1, window10);
    expect(pacing.earliest(1_000)).toBe(1_000);
    pacing.recorded(1_000, 1, window10);
    expect(pacing.earliest(1_000)).toBe(1_100);
  });

  it('moves the spacing by what a settle gave back or overran', () => {
    const pacing = new Pacing(Number.POSITIVE_INFINITY);
    pacing.recorded(0, 4, window10);
    expect(pacing.earliest(0)).toBe(400);
    pacing.settled(-3, window10);
    expect(pacing.earliest(0)).toBe(100);
    pacing.settled(2, window10);
    expect(pacing.earliest(0)).toBe(300);
  });
});

describe('SlidingWindowPolicy with pace', () => {
  it('answers the later of the window and the spacing, and grants no lease (k at once is not k spaced)', () => {
    const policy = new SlidingWindowPolicy(window10, spread(100), Number.POSITIVE_INFINITY);
    expect(policy.grantsInBulk).toBe(false);
    expect(new SlidingWindowPolicy(window10).grantsInBulk).toBe(true);
    expect(policy.earliestDelivery(0, 1)).toBe(0);
    policy.recordDelivery(0, 1);
    expect(policy.earliestDelivery(0, 1)).toBe(100);
    for (let at = 100; at < 1_000; at += 100) policy.recordDelivery(at, 1);
    // Ten at 0, 100, ..., 900: the spacing allows 1000, the window counted 1000 + J = 1100 long holds it to
    // 1100; the next go as these leave it, 100 apart.
    expect(policy.earliestDelivery(1_000, 1)).toBe(1_100);
    policy.recordDelivery(1_100, 1);
    expect(policy.earliestDelivery(1_100, 1)).toBe(1_200);
  });

  it('a settle gives the spacing back', () => {
    const policy = new SlidingWindowPolicy(window10, undefined, Number.POSITIVE_INFINITY);
    policy.recordDelivery(0, 5);
    expect(policy.earliestDelivery(0, 1)).toBe(500);
    policy.settleDelivery(0, 5, 2, 10);
    expect(policy.earliestDelivery(10, 1)).toBe(200);
  });
});

describe('the pace option', () => {
  it('resolves true, false and a duration', () => {
    expect(resolveOptions({ rate: '2/1s', strategy: 'sliding-window', pace: true }).strategyOptions.pace).toBe(true);
    expect(resolveOptions({ rate: '2/1s', strategy: 'sliding-window', pace: '1s' }).strategyOptions.pace).toBe(1_000);
    expect(resolveOptions({ rate: '2/1s', strategy: 'sliding-window', pace: false }).strategyOptions.pace).toBe(
      undefined,
    );
    expect(resolveOptions({ rate: '2/1s', strategy: 'sliding-window' }).strategyOptions.pace).toBe(undefined);
  });

  it('refuses a bad value by name', () => {
    expectOptionError(() => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', pace: {} as never }), {
      message:
        'pace must be true, false, or a positive duration (the most a window\'s worth is spread over, e.g. "1s"), got {}',
      option: 'pace',
      value: {},
    });
    expectOptionError(() => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', pace: -5 }), {
      message: 'pace must be a positive, finite duration in milliseconds, got -5',
      option: 'pace',
      value: -5,
    });
  });

  it('is refused where it would pace nothing: another strategy, countUntil "done", a store', () => {
    for (const strategy of ['token-bucket', 'timer', 'warming-up'] as const) {
      expect(() => resolveOptions({ rate: '2/1s', strategy, warmup: '1s', pace: true })).toThrow(
        new RegExp(`^pace must be false or absent with strategy "${strategy}": `),
      );
    }
    expect(() => resolveOptions({ rate: '2/1s', strategy: 'sliding-window', countUntil: 'done', pace: true })).toThrow(
      /^pace must be false or absent with countUntil "done"/,
    );
    expect(() =>
      createThrottler({
        rate: '2/1s',
        strategy: 'sliding-window',
        pace: true,
        store: createMemoryStore({ name: 'p' }),
      }),
    ).toThrow(/^pace must be false or absent with a store/);
  });

  it("spaces the machine's deliveries, and survives a save and restore", () => {
    const recorder = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '4/1s', strategy: 'sliding-window', pace: true, target: recorder.ref },
    }).start();
    for (let id = 0; id < 6; id += 1) actor.send({ type: 'QUEUE', message: { type: 'ping', id } });
    advance(600);
    // 1000 / 4 apart, not 4 at once.
    expect(recorder.times().map((at) => Math.round(at))).toEqual([0, 250, 500]);
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.options.strategyOptions.pace).toBe(true);
    const after = createRecorder();
    const restored = restoreThrottler(saved, { target: after.ref });
    advance(2_000);
    // The window holds 0, 250, 500 (and what the save's shift moves); the three left still go 250 apart.
    const times = after.times();
    expect(times).toHaveLength(3);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(250 - 1e-6);
    restored.stop();
  });
});
