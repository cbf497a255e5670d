import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor } from 'xstate';
import {
  createThrottler,
  restoreThrottler,
  type StrategyName,
  type ThrottlerInput,
  ThrottlerOptionError,
  throttlerMachine,
} from '../../src/index.js';
import {
  createThrottler as createLeanThrottler,
  throttlerMachine as leanThrottlerMachine,
  restoreThrottler as restoreLeanThrottler,
} from '../../src/lean/index.js';
import { type Strategy, slidingWindow, timer, tokenBucket, warmingUp } from '../../src/strategies/index.js';
import { expectOptionError } from '../support/option-error.js';
import { runs } from '../support/property-runs.js';
import { createRecorder, type Numbered } from '../support/recorder.js';
import { advance, now, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * A strategy value is its name: the lean throttler given `slidingWindow` (and the main one given it too)
 * behaves exactly as the main one given `'sliding-window'`, for each of the four strategies, in virtual
 * time. The oracle is the named throttler itself, run on the same arrivals.
 */
const VALUES: ReadonlyArray<[StrategyName, Strategy]> = [
  ['timer', timer],
  ['sliding-window', slidingWindow],
  ['token-bucket', tokenBucket],
  ['warming-up', warmingUp],
];

/** One message's arrival: how long after the previous one, its channel and cost. */
interface Arrival {
  readonly gap: number;
  readonly channel: 'a' | 'b';
  readonly cost: number;
}

const arrivalArbitrary = fc.record({
  gap: fc.integer({ min: 0, max: 300 }),
  channel: fc.constantFrom('a' as const, 'b' as const),
  cost: fc.integer({ min: 1, max: 2 }),
});

/** The options every run shares; `strategy` is the one thing that differs. */
const common = { rate: ['3/1s', '5/2s'], channels: { a: '2/500ms', b: '3/1s' }, warmup: 800, maxBurst: 2 };

/** Every delivery as [n, ms after the run began], a SET_RATE halfway, and the saved options at the end. */
function runMachine(machine: typeof throttlerMachine, strategy: StrategyName | Strategy, arrivals: Arrival[]) {
  const startedAt = now();
  const target = createRecorder<Numbered>();
  const input = { ...common, strategy, target: target.ref as AnyActorRef } as ThrottlerInput;
  const actor = createActor(machine, { input }).start();
  for (const [n, { gap, channel, cost }] of arrivals.entries()) {
    advance(gap);
    if (n === Math.floor(arrivals.length / 2)) actor.send({ type: 'SET_RATE', rate: '4/1s' });
    actor.send({ type: 'QUEUE', message: { type: 'msg', n }, channel, cost });
  }
  advance(60_000);
  const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())).context.dispatcher;
  expect(pendingTimers()).toBe(0);
  actor.stop();
  return {
    deliveries: target.received.map(({ message, at }) => [message.n, at - startedAt]),
    options: saved.options,
  };
}

describe('a strategy value behaves exactly as its name', () => {
  it.each(VALUES)('the machine: %s by name, by value on the main entry and on the lean one', (name, value) => {
    fc.assert(
      fc.property(fc.array(arrivalArbitrary, { minLength: 1, maxLength: 25 }), (arrivals) => {
        const named = runMachine(throttlerMachine, name, arrivals);
        expect(named.deliveries).toHaveLength(arrivals.length);
        expect(runMachine(throttlerMachine, value, arrivals)).toEqual(named);
        expect(runMachine(leanThrottlerMachine, value, arrivals)).toEqual(named);
        // The saved snapshot names the strategy as before: the value is never written.
        expect(named.options.strategy).toBe(name);
        expect(named.options).not.toHaveProperty('strategyValue');
      }),
      { numRuns: runs(40) },
    );
  });

  it.each(VALUES)(
    'the promise API: %s by name starts every task when the lean one given its value does',
    async (name, value) => {
      const startsOf = async (create: typeof createThrottler, strategy: StrategyName | Strategy) => {
        const throttler = create({ ...common, strategy });
        const startedAt = now();
        const tasks = [0, 1, 2, 3, 4, 5, 6].map((n) =>
          throttler.schedule(() => now() - startedAt, { channel: n % 2 === 0 ? 'a' : 'b', cost: 1 + (n % 2) }),
        );
        await Promise.resolve();
        for (let step = 0; step < 100; step += 1) {
          advance(100);
          await Promise.resolve();
        }
        const starts = await Promise.all(tasks);
        throttler.stop();
        return starts;
      };
      const named = await startsOf(createThrottler, name);
      expect(await startsOf(createLeanThrottler, value)).toEqual(named);
      expect(await startsOf(createThrottler, value)).toEqual(named);
    },
  );

  it.each(VALUES)('a restore: %s saved by the lean throttler comes back on either entry', (name, value) => {
    const target = createRecorder<Numbered>();
    const actor = createActor(leanThrottlerMachine, { input: { rate: '1/1s', strategy: value, warmup: 500 } }).start();
    for (const n of [0, 1, 2]) actor.send({ type: 'QUEUE', message: { type: 'msg', n } });
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.options.strategy).toBe(name);
    const restoredLean = restoreLeanThrottler(saved, { strategy: value });
    const restoredMain = restoreThrottler(saved, { target: target.ref });
    expect(restoredLean.getSnapshot().context.counts.queued).toBe(3);
    advance(10_000);
    expect(target.messages().map(({ n }) => n)).toEqual([0, 1, 2]);
    restoredLean.stop();
    restoredMain.stop();
  });
});

describe('a wrong strategy', () => {
  const leanFix = (valueName: string) =>
    `strategy must be a strategy value (xstate-throttler/lean knows no strategy by name): import { ${valueName} } from ` +
    `"xstate-throttler/strategies" and pass strategy: ${valueName}`;

  it('on the lean entry, a name says what to import instead; nothing says the strategy is required', () => {
    expectOptionError(() => createLeanThrottler({ rate: '1/1s', strategy: 'sliding-window' }), {
      message: `${leanFix('slidingWindow')}, got "sliding-window"`,
      option: 'strategy',
      value: 'sliding-window',
    });
    expectOptionError(() => createLeanThrottler({ rate: '1/1s' }), {
      message: `${leanFix('timer')}, got undefined`,
      option: 'strategy',
      value: undefined,
    });
    const actor = createActor(leanThrottlerMachine, { input: { rate: '1/1s', strategy: 'warming-up' } });
    expect(actor.getSnapshot().status).toBe('error');
    expect((actor.getSnapshot().error as Error).message).toBe(`${leanFix('warmingUp')}, got "warming-up"`);
  });

  it('on either entry, an object that is no strategy value is refused with the value', () => {
    const fake = { name: 'sliding-window' };
    for (const create of [createThrottler, createLeanThrottler]) {
      let thrown: unknown;
      try {
        create({ rate: '1/1s', strategy: fake as never });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ThrottlerOptionError);
      expect((thrown as ThrottlerOptionError).option).toBe('strategy');
      expect((thrown as ThrottlerOptionError).value).toBe(fake);
    }
    expectOptionError(() => createThrottler({ rate: '1/1s', strategy: { name: 'fastest' } as never }), {
      message:
        'strategy must be one of "timer", "sliding-window", "token-bucket", "warming-up", or a strategy value from ' +
        'xstate-throttler/strategies (one of your own made by defineStrategy), got {"name":"fastest"}',
      option: 'strategy',
      value: { name: 'fastest' },
    });
  });

  it('a restore on the lean entry needs the saved strategy as a value, and refuses another one', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: 'token-bucket' } }).start();
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expectOptionError(() => restoreLeanThrottler(saved), {
      message: `${leanFix('tokenBucket')}, got "token-bucket"`,
      option: 'strategy',
      value: 'token-bucket',
    });
    for (const restore of [restoreThrottler, restoreLeanThrottler]) {
      expectOptionError(() => restore(saved, { strategy: slidingWindow }), {
        message: 'strategy must be the strategy the snapshot was saved with, "token-bucket", got "sliding-window"',
        option: 'strategy',
        value: 'sliding-window',
      });
    }
  });
});
