import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, type Rate, throttlerMachine } from '../../src/index.js';
import { createThrottler as leanCreateThrottler } from '../../src/lean/index.js';
import type { Strategy } from '../../src/strategies/index.js';
import { fixedWindow, leakyBucket, type OwnArrival, ownOracle } from '../support/own-strategies.js';
import { runs } from '../support/property-runs.js';
import { createRecorder } from '../support/recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

const NUM_RUNS = 100;

/** A strategy of the user's own, its rates and arrivals: the oracle's times are whole milliseconds. */
interface OwnScenario {
  readonly kind: 'fixed' | 'leaky';
  readonly rates: Rate[];
  readonly arrivals: OwnArrival[];
}

const arrivalsFor = (rates: readonly Rate[]) => {
  const largest = Math.min(...rates.map((rate) => rate.limit));
  return fc
    .array(fc.record({ gap: fc.integer({ min: 0, max: 60 }), cost: fc.integer({ min: 1, max: largest }) }), {
      minLength: 1,
      maxLength: 15,
    })
    .map((steps) => {
      let at = 0;
      return steps.map(({ gap, cost }) => {
        at += gap;
        return { at, cost };
      });
    });
};

/** One or two fixed windows of any length; one leaky bucket whose interval is a whole multiple of its limit. */
const scenarioArbitrary: fc.Arbitrary<OwnScenario> = fc.oneof(
  fc
    .array(fc.record({ limit: fc.integer({ min: 1, max: 4 }), interval: fc.integer({ min: 10, max: 120 }) }), {
      minLength: 1,
      maxLength: 2,
    })
    .chain((rates) => arrivalsFor(rates).map((arrivals) => ({ kind: 'fixed' as const, rates, arrivals }))),
  fc
    .record({ limit: fc.integer({ min: 1, max: 4 }), unit: fc.integer({ min: 1, max: 30 }) })
    .map(({ limit, unit }) => [{ limit, interval: limit * unit }])
    .chain((rates) => arrivalsFor(rates).map((arrivals) => ({ kind: 'leaky' as const, rates, arrivals }))),
);

const strategyOf = (kind: OwnScenario['kind']): Strategy<string> => (kind === 'fixed' ? fixedWindow : leakyBucket);

const lastDue = (expected: readonly number[]) => Math.max(...expected) + 1;

/** The scenario through the machine in virtual time: when the target got each message. */
function throughMachine({ kind, rates, arrivals }: OwnScenario): number[] {
  restoreRealTime();
  useVirtualTime();
  const target = createRecorder();
  const actor = createActor(throttlerMachine, {
    input: { rate: rates.map((rate) => ({ ...rate })), strategy: strategyOf(kind), target: target.ref },
  });
  // A legit policy never breaks the contract (the one rule's check included): any breach fails the run.
  const breaches: string[] = [];
  actor.on('strategyError', ({ error }) => breaches.push(error.message));
  actor.start();
  let clock = 0;
  for (const { at, cost } of arrivals) {
    advance(at - clock);
    clock = at;
    actor.send({ type: 'QUEUE', message: { type: 'm' }, cost });
  }
  advance(lastDue(ownOracle(kind, rates, arrivals)) - clock);
  actor.stop();
  expect(breaches).toEqual([]);
  return target.received.map(({ at }) => at);
}

/** The scenario through createThrottler (the main entry's or the lean one's) in virtual time: when each task started. */
async function throughPromises({ kind, rates, arrivals }: OwnScenario, lean: boolean): Promise<number[]> {
  restoreRealTime();
  useVirtualTime();
  const create = lean ? leanCreateThrottler : createThrottler;
  const throttler = create({ rate: rates.map((rate) => ({ ...rate })), strategy: strategyOf(kind) });
  const started: number[] = [];
  const done: Promise<unknown>[] = [];
  let clock = 0;
  for (const { at, cost } of arrivals) {
    await vi.advanceTimersByTimeAsync(at - clock);
    clock = at;
    // Cost 1 without options: the lease path when the strategy leases (fixed window).
    const task = () => started.push(now());
    done.push(cost === 1 ? throttler.schedule(task) : throttler.schedule(task, { cost }));
  }
  await vi.advanceTimersByTimeAsync(lastDue(ownOracle(kind, rates, arrivals)) - clock);
  await Promise.all(done);
  throttler.stop();
  return started;
}

describe("strategies of a user's own (defineStrategy) against a brute-force oracle, in virtual time", () => {
  it('the machine sends each message at the earliest time the oracle allows (fixed window, leaky bucket)', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        expect(throughMachine(scenario)).toEqual(ownOracle(scenario.kind, scenario.rates, scenario.arrivals));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('createThrottler starts each task at the earliest time the oracle allows, leasing or not', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        expect(await throughPromises(scenario, false)).toEqual(
          ownOracle(scenario.kind, scenario.rates, scenario.arrivals),
        );
      }),
      { numRuns: runs(NUM_RUNS / 2) },
    );
  });

  it('xstate-throttler/lean takes a strategy of your own alike', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        expect(await throughPromises(scenario, true)).toEqual(
          ownOracle(scenario.kind, scenario.rates, scenario.arrivals),
        );
      }),
      { numRuns: runs(NUM_RUNS / 4) },
    );
  });
});
