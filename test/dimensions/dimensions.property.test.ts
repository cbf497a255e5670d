import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type StrategyName, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { runs } from '../support/property-runs.js';
import { createRecorder } from '../support/recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * Several dimensions at once, against a brute force: random dimensions (each with one or two rates),
 * channels naming some of them, and costs as numbers or maps (some dimensions left out). Every window of
 * every rate of every dimension, overall and per channel, is scanned from the definition; every message
 * is delivered exactly once. Sliding window: at most the limit; the voucher timer: at most 2N (its
 * documented bound, two periods); the smooth strategies: at most N + the limit of stored permits + one
 * borrowed cost (3N), each in its dimension.
 */

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const NAMES = ['requests', 'tokens', '__proto__'] as const;
const INTERVALS = [100, 250, 1_000] as const;

interface RateSpec {
  limit: number;
  interval: number;
}
type DimRates = Map<string, RateSpec[]>;
interface Arrival {
  id: number;
  at: number;
  channel: string | undefined;
  cost: number | Map<string, number>;
}

const rateArb = fc.record({ limit: fc.integer({ min: 2, max: 8 }), interval: fc.constantFrom(...INTERVALS) });

const scenarioArb = fc
  .record({
    dims: fc.subarray([...NAMES], { minLength: 1 }),
    strategy: fc.constantFrom<StrategyName>('sliding-window', 'timer', 'token-bucket', 'warming-up'),
    seed: fc.integer(),
  })
  .chain(({ dims, strategy }) =>
    fc
      .record({
        overall: fc.tuple(...dims.map(() => fc.array(rateArb, { minLength: 1, maxLength: 2 }))),
        channels: fc.array(
          fc.tuple(fc.subarray(dims, { minLength: 1 }), fc.array(rateArb, { minLength: 1, maxLength: 1 })),
          { maxLength: 2 },
        ),
        ordering: fc.constantFrom('fifo' as const, 'per-channel' as const),
        arrivals: fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: 1_500 }),
            channel: fc.integer({ min: -1, max: 1 }),
            asNumber: fc.boolean(),
            parts: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: dims.length, maxLength: dims.length }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
      })
      .map((drawn) => ({ dims, strategy, ...drawn })),
  );

function smallest(rates: readonly RateSpec[] | undefined): number {
  return Math.min(Number.POSITIVE_INFINITY, ...(rates ?? []).map((rate) => rate.limit));
}

/** A random scenario made valid: costs fit every limit that applies, channels name rates of theirs. */
type Drawn = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function build(drawn: Drawn) {
  const { dims, strategy, ordering } = drawn;
  const overall: DimRates = new Map(dims.map((name, index) => [name, drawn.overall[index] as RateSpec[]]));
  const channels = new Map<string, DimRates>();
  for (const [index, [named, rates]] of drawn.channels.entries()) {
    channels.set(`c${index}`, new Map(named.map((name) => [name, rates])));
  }
  const arrivals: Arrival[] = [];
  const sorted = [...drawn.arrivals].sort((a, b) => a.at - b.at);
  for (const [id, arrival] of sorted.entries()) {
    const channel = arrival.channel >= 0 && channels.has(`c${arrival.channel}`) ? `c${arrival.channel}` : undefined;
    const own = channel === undefined ? undefined : channels.get(channel);
    const limitIn = (name: string) => Math.min(smallest(overall.get(name)), smallest(own?.get(name)));
    if (arrival.asNumber) {
      const most = Math.min(...dims.map(limitIn));
      arrivals.push({ id, at: arrival.at, channel, cost: 1 + ((arrival.parts[0] as number) % most) });
      continue;
    }
    const cost = new Map<string, number>();
    for (const [index, name] of dims.entries()) {
      const part = (arrival.parts[index] as number) % (limitIn(name) + 1);
      if (part > 0 || index === 0) cost.set(name, part);
    }
    if (![...cost.values()].some((part) => part > 0)) cost.set(dims[0] as string, 1);
    arrivals.push({ id, at: arrival.at, channel, cost });
  }
  return { dims, strategy, ordering, overall, channels, arrivals };
}

function asInput(rates: DimRates): Record<string, Array<{ limit: number; interval: number }>> {
  const input: Record<string, Array<{ limit: number; interval: number }>> = {};
  for (const [name, list] of rates) Object.defineProperty(input, name, { value: list, enumerable: true });
  return input;
}

function asCost(cost: number | Map<string, number>): number | Record<string, number> {
  if (typeof cost === 'number') return cost;
  const record: Record<string, number> = {};
  for (const [name, part] of cost) Object.defineProperty(record, name, { value: part, enumerable: true });
  return record;
}

/** The fullest window of one rate over deliveries (at, cost), by brute force: every window starting at a delivery. */
function fullest(log: ReadonlyArray<{ at: number; cost: number }>, interval: number): number {
  let most = 0;
  for (const start of log) {
    let held = 0;
    for (const other of log) if (other.at >= start.at && other.at < start.at + interval) held += other.cost;
    most = Math.max(most, held);
  }
  return most;
}

const FACTOR: Record<StrategyName, number> = { 'sliding-window': 1, timer: 2, 'token-bucket': 3, 'warming-up': 3 };

describe('several dimensions at once: every window of every rate of every dimension (brute force)', () => {
  it('stays within its limit, overall and per channel, and delivers every message exactly once', () => {
    fc.assert(
      fc.property(scenarioArb, (drawn) => {
        const scenario = build(drawn);
        const target = createRecorder<{ type: 'msg'; n: number }>();
        const input = {
          strategy: scenario.strategy,
          ordering: scenario.ordering,
          rate: asInput(scenario.overall),
          channels: new Map([...scenario.channels].map(([name, rates]) => [name, asInput(rates)])),
          warmup: 500,
          target: target.ref,
        } as unknown as ThrottlerInput;
        const actor = createActor(throttlerMachine, { input });
        const refused: unknown[] = [];
        actor.on('rejected', (event) => refused.push(event));
        actor.start();
        const base = now();
        for (const arrival of scenario.arrivals) {
          advance(base + arrival.at - now());
          const cost = asCost(arrival.cost);
          actor.send({ type: 'QUEUE', message: { type: 'msg', n: arrival.id }, channel: arrival.channel, cost });
        }
        advance(60_000);
        actor.stop();
        expect(refused).toEqual([]);
        const ids = target.received.map((received) => received.message.n).sort((a, b) => a - b);
        expect(ids).toEqual(scenario.arrivals.map((arrival) => arrival.id));
        const byId = new Map(scenario.arrivals.map((arrival) => [arrival.id, arrival]));
        const scopes: Array<[string | undefined, DimRates]> = [[undefined, scenario.overall], ...scenario.channels];
        for (const [channel, rates] of scopes) {
          for (const [name, list] of rates) {
            const log: Array<{ at: number; cost: number }> = [];
            for (const { message, at } of target.received) {
              const arrival = byId.get(message.n) as Arrival;
              if (channel !== undefined && arrival.channel !== channel) continue;
              const cost = typeof arrival.cost === 'number' ? arrival.cost : (arrival.cost.get(name) ?? 0);
              if (cost > 0) log.push({ at, cost });
            }
            for (const rate of list) {
              const most = fullest(log, rate.interval);
              expect({ channel, name, rate, most }).toEqual({
                channel,
                name,
                rate,
                most: Math.min(most, rate.limit * FACTOR[scenario.strategy]),
              });
            }
          }
        }
      }),
      { numRuns: runs(100) },
    );
  });
});
