/**
 * token-bucket and warming-up against an independent port of Guava's SmoothRateLimiter
 * (test/support/guava-port.ts), over random rates (sub-millisecond permits too), bursts, warm-ups,
 * cold factors, costs and arrival schedules (back to back, and idle long enough to cool down).
 *
 * Every message is a request made as it arrives; Guava grants it at the port's time. The
 * throttler must deliver it at that time or up to 1 ms later (the timer counts whole ms), never
 * before, and that lateness must not shift the grants after it. With timerPrecision 'exact' and
 * a timer that fires at its exact moment, every delivery is at its grant.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import type { Clock } from '../../src/machine/types.js';
import { type GuavaLimiterShape, GuavaSmoothRateLimiter } from '../support/guava-port.js';
import type { Arrival, OracleRate } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import type { SendAs } from '../support/scenarios.js';
import { drain, driveSchedule, sendAsArbitrary, type TaggedMessage } from '../support/scenarios.js';
import { restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

const NUM_RUNS = 300;

/** Rounding between two orders of the same floating-point arithmetic, not a tolerance on time. */
const EPSILON_MS = 1e-6;

/** How late a delivery may be with timerPrecision 'ms': the wake-up delay is rounded up to whole ms. */
const TIMER_SLACK_MS = 1;

const rateArbitrary: fc.Arbitrary<OracleRate> = fc.oneof(
  // A permit every few ms up to every 2 s.
  fc.record({ limit: fc.integer({ min: 1, max: 10 }), interval: fc.integer({ min: 1, max: 2_000 }) }),
  // Sub-millisecond permits: several fall due within one wake-up.
  fc.record({ limit: fc.integer({ min: 2, max: 60 }), interval: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ limit: fc.integer({ min: 1_000, max: 20_000 }), interval: fc.constant(1_000) }),
);

/** A positive number that is sometimes whole and sometimes not. */
const amount = (min: number, max: number) =>
  fc.oneof(fc.integer({ min: Math.ceil(min), max }), fc.double({ min, max, noNaN: true }));

type Strategy =
  | { readonly strategy: 'token-bucket'; readonly maxBurst: number | undefined }
  | { readonly strategy: 'warming-up'; readonly warmup: number; readonly coldFactor: number | undefined };

const strategyArbitrary: fc.Arbitrary<Strategy> = fc.oneof(
  fc.record({
    strategy: fc.constant('token-bucket' as const),
    maxBurst: fc.option(amount(0.1, 20), { nil: undefined }),
  }),
  fc.record({
    strategy: fc.constant('warming-up' as const),
    warmup: amount(0.5, 5_000),
    coldFactor: fc.option(amount(1, 10), { nil: undefined }),
  }),
);

/** Back to back, a few ms apart, or idle for long enough to store permits or cool down. */
const gapArbitrary = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 3 }),
  fc.integer({ min: 0, max: 50 }),
  fc.integer({ min: 0, max: 5_000 }),
);

function arrivalsArbitrary(rate: OracleRate): fc.Arbitrary<Arrival[]> {
  const message = fc.tuple(gapArbitrary, fc.integer({ min: 1, max: 3 }));
  return fc.array(message, { minLength: 1, maxLength: 30 }).map((messages) => {
    let at = 0;
    return messages.map(([gap, cost], id) => {
      at += gap;
      return { id, at, cost: Math.min(cost, rate.limit), channel: undefined };
    });
  });
}

const scenarioArbitrary = fc
  .tuple(rateArbitrary, strategyArbitrary, sendAsArbitrary)
  .chain(([rate, strategy, sendAs]) =>
    arrivalsArbitrary(rate).map((arrivals) => ({ rate, strategy, sendAs, arrivals })),
  );

/**
 * Backlogs long enough for the sum of permit intervals to drift a rounding error past a whole ms
 * (3 per 10 ms: the 15th permit's 50 ms adds up to 50.000000000000007), with the rates that drift so.
 */
const driftScenarioArbitrary = fc
  .tuple(
    fc.constantFrom<OracleRate>(
      { limit: 3, interval: 10 },
      { limit: 7, interval: 10 },
      { limit: 3, interval: 7 },
      { limit: 13, interval: 10 },
      { limit: 7, interval: 1_000 },
      { limit: 30, interval: 1_000 },
    ),
    strategyArbitrary,
    sendAsArbitrary,
    fc.integer({ min: 20, max: 60 }),
  )
  .map(([rate, strategy, sendAs, count]) => ({
    rate,
    strategy,
    sendAs,
    arrivals: Array.from({ length: count }, (_, id): Arrival => ({ id, at: 0, cost: 1, channel: undefined })),
  }));

/** When Guava grants each arrival, its limiter created with the throttler at 0. */
function guavaGrants(rate: OracleRate, strategy: Strategy, arrivals: readonly Arrival[]): number[] {
  const shape: GuavaLimiterShape =
    strategy.strategy === 'token-bucket'
      ? { kind: 'bursty', maxBurstPermits: strategy.maxBurst ?? rate.limit }
      : { kind: 'warming-up', warmupPeriodMs: strategy.warmup, coldFactor: strategy.coldFactor ?? 3 };
  const limiter = new GuavaSmoothRateLimiter(shape, (rate.limit * 1_000) / rate.interval, 0);
  return arrivals.map((arrival) => limiter.reserve(arrival.cost, arrival.at));
}

function inputFor(rate: OracleRate, strategy: Strategy): Omit<ThrottlerInput, 'target'> {
  return { rate: { ...rate }, ...strategy };
}

/** The deliveries in the project's virtual time (Vitest fake timers), timerPrecision 'ms'. */
function deliveredInMs(
  rate: OracleRate,
  strategy: Strategy,
  arrivals: readonly Arrival[],
  sendAs: SendAs,
): Array<{ id: number; at: number }> {
  const driven = driveSchedule(inputFor(rate, strategy), arrivals, undefined, sendAs);
  drain(driven, rate.interval);
  const deliveries = driven.deliveries();
  driven.actor.stop();
  return deliveries;
}

/**
 * The deliveries with timerPrecision 'exact', on a simulated clock whose timers fire at their
 * exact (fractional) moment: Vitest's fake timers truncate a fractional delay, as Node's do.
 */
function deliveredExactly(
  rate: OracleRate,
  strategy: Strategy,
  arrivals: readonly Arrival[],
): Array<{ id: number; at: number }> {
  let time = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  let nextTimerId = 0;
  const clock: Clock = {
    setTimeout(callback: () => void, timeout: number) {
      timers.set(nextTimerId, { at: time + timeout, callback });
      return nextTimerId++;
    },
    clearTimeout(id: number) {
      timers.delete(id);
    },
  };
  /** Fires the earliest timer due by `until`; false when none is. */
  const fireNext = (until: number): boolean => {
    let earliest: [number, { at: number; callback: () => void }] | undefined;
    for (const entry of timers)
      if (entry[1].at <= until && (!earliest || entry[1].at < earliest[1].at)) earliest = entry;
    if (earliest === undefined) return false;
    timers.delete(earliest[0]);
    time = Math.max(time, earliest[1].at);
    earliest[1].callback();
    return true;
  };
  const received: Array<{ id: number; at: number }> = [];
  const target = createActor(
    fromCallback<TaggedMessage>(({ receive }) => receive((message) => received.push({ id: message.id, at: time }))),
  ).start();
  const actor = createActor(throttlerMachine, {
    input: { ...inputFor(rate, strategy), timerPrecision: 'exact', now: () => time, target },
    clock,
  }).start();
  for (const arrival of arrivals) {
    while (fireNext(arrival.at));
    time = arrival.at;
    actor.send({ type: 'QUEUE', message: { type: 'tagged', id: arrival.id }, cost: arrival.cost });
  }
  for (let wakes = 0; wakes < 100_000 && fireNext(Number.POSITIVE_INFINITY); wakes++);
  actor.stop();
  target.stop();
  return received;
}

/** Every arrival went once, in order, within `slack` after its Guava grant and never before it. */
function expectOnGuavaSchedule(
  delivered: ReadonlyArray<{ id: number; at: number }>,
  arrivals: readonly Arrival[],
  grants: readonly number[],
  slack: number,
): void {
  expect(delivered.map((delivery) => delivery.id)).toEqual(arrivals.map((arrival) => arrival.id));
  const offSchedule = delivered.filter(
    ({ id, at }) => !(at >= (grants[id] as number) - EPSILON_MS && at <= (grants[id] as number) + slack + EPSILON_MS),
  );
  expect(offSchedule.map(({ id, at }) => ({ id, at, guava: grants[id] }))).toEqual([]);
}

describe('token-bucket and warming-up against a port of Guava SmoothRateLimiter', () => {
  it("timerPrecision 'ms': each delivery within 1 ms after Guava's grant, never before", () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ rate, strategy, sendAs, arrivals }) => {
        const delivered = deliveredInMs(rate, strategy, arrivals, sendAs);
        expectOnGuavaSchedule(delivered, arrivals, guavaGrants(rate, strategy, arrivals), TIMER_SLACK_MS);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("timerPrecision 'ms': each delivery at the first whole ms at or after Guava's grant, float drift adding no round", () => {
    fc.assert(
      fc.property(driftScenarioArbitrary, ({ rate, strategy, sendAs, arrivals }) => {
        const delivered = deliveredInMs(rate, strategy, arrivals, sendAs);
        const grants = guavaGrants(rate, strategy, arrivals);
        // Virtual time is whole ms: a grant a rounding error past a whole ms is due at that ms, not the next.
        const late = delivered.filter(({ id, at }) => at !== Math.ceil((grants[id] as number) - EPSILON_MS));
        expect(late.map(({ id, at }) => ({ id, at, guava: grants[id] }))).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("timerPrecision 'exact' on a clock that fires on time: each delivery at Guava's grant", () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ rate, strategy, arrivals }) => {
        const delivered = deliveredExactly(rate, strategy, arrivals);
        expectOnGuavaSchedule(delivered, arrivals, guavaGrants(rate, strategy, arrivals), 0);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
