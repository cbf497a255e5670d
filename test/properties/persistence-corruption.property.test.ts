import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  parseRates,
  type Rate,
  type RatesInput,
  restoreThrottler,
  type StrategyName,
  type ThrottlerInput,
  ThrottlerOptionError,
  throttlerMachine,
} from '../../src/index.js';
import { runs } from '../support/property-runs.js';
import { createRecorder } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

/**
 * A persisted snapshot damaged at random (a field replaced, deleted, nudged, an
 * array reordered or cut) is either refused with a ThrottlerOptionError or
 * restored into a throttler that delivers without an error and within its
 * limits, counting what the (damaged) snapshot says was delivered before.
 */

const CHANNEL_NAMES = ['a', '__proto__', 'constructor'] as const;
/** Keys (with the keys option): names that are no configured channel, one an object would inherit. */
const KEY_NAMES = ['k', 'hasOwnProperty'] as const;
const STRATEGIES: StrategyName[] = ['sliding-window', 'timer', 'token-bucket', 'warming-up'];

interface Scenario {
  strategy: StrategyName;
  rates: Rate[];
  channels: Array<[string, Rate]>;
  /** The keys' template rate, or undefined for no keys option. */
  keyRate: Rate | undefined;
  messages: Array<{ channel: string | undefined; cost: number }>;
  persistAt: number;
  gap: number;
  corruptions: Corruption[];
}

/**
 * How to damage a snapshot: nudge a number (which often leaves a state that reads as valid, the case that
 * must not burst), rearrange an array, or replace any node; `node` picks among the candidates, modulo
 * their number, and `pick` the nudge, rearrangement or replacement.
 */
interface Corruption {
  how: 'nudge' | 'rearrange' | 'replace';
  node: number;
  pick: number;
}

const MISSING = Symbol('missing');
const NASTY: unknown[] = [
  MISSING,
  null,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  0,
  0.5,
  1,
  2,
  3,
  4,
  1e300,
  -1e300,
  Number.MAX_SAFE_INTEGER,
  2 ** 53,
  2 ** 52,
  8.64e15,
  'x',
  '',
  '1',
  '1s',
  true,
  {},
  [],
  [0, 1],
  [[0, 1]],
  '__proto__',
  'constructor',
  'a',
  'forever',
  'sliding-window',
  'timer',
  'all-of',
  'token-bucket',
];
const NUDGES: Array<(value: number) => number> = [
  (v) => v + 1,
  (v) => v + 2,
  (v) => v + 5,
  (v) => v - 1,
  (v) => v + 0.5,
  (v) => v - 1_000,
  (v) => v + 1_000,
  (v) => v + 1e6,
  (v) => v * 2,
  (v) => v / 2,
  (v) => -v,
];
const REARRANGEMENTS: Array<(value: unknown[]) => void> = [
  (a) => a.reverse(),
  (a) => a.shift(),
  (a) => a.pop(),
  (a) => a.push(structuredClone(a[0])),
  (a) => a.unshift(structuredClone(a.at(-1))),
  (a) => a.splice(0),
  (a) => {
    if (a.length > 1) [a[0], a[1]] = [a[1], a[0]];
  },
];

const rateArbitrary = fc.record({
  limit: fc.integer({ min: 1, max: 4 }),
  interval: fc.constantFrom(200, 500, 1_000),
});

const scenarioArbitrary: fc.Arbitrary<Scenario> = fc
  .record({
    strategy: fc.constantFrom(...STRATEGIES),
    rates: fc.array(rateArbitrary, { minLength: 1, maxLength: 2 }),
    channelRates: fc.array(rateArbitrary, { minLength: 3, maxLength: 3 }),
    channelCount: fc.integer({ min: 0, max: CHANNEL_NAMES.length }),
    keyRate: fc.option(rateArbitrary, { nil: undefined }),
    messages: fc.array(fc.record({ channel: fc.nat(5), cost: fc.integer({ min: 1, max: 3 }) }), {
      minLength: 1,
      maxLength: 16,
    }),
    persistAt: fc.integer({ min: 0, max: 1_200 }),
    gap: fc.integer({ min: 0, max: 300 }),
    corruptions: fc.array(
      fc.record({
        how: fc.constantFrom('nudge', 'nudge', 'nudge', 'rearrange', 'replace'),
        node: fc.nat(),
        pick: fc.nat(),
      }),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  })
  .map(({ strategy, rates, channelRates, channelCount, keyRate, messages, persistAt, gap, corruptions }) => {
    const channels = CHANNEL_NAMES.slice(0, channelCount).map((name, i): [string, Rate] => [
      name,
      channelRates[i] as Rate,
    ]);
    const scopes: Array<[string, Rate] | undefined> = [
      ...channels,
      ...(keyRate === undefined ? [] : KEY_NAMES.map((name): [string, Rate] => [name, keyRate])),
    ];
    return {
      strategy,
      rates,
      channels,
      keyRate,
      messages: messages.map(({ channel: index, cost }) => {
        const scope = scopes[index % 6];
        const channel = scope?.[0];
        const limits = [...rates, ...(scope === undefined ? [] : [scope[1]])];
        // Costs only where the bound checked below counts them: in the sliding window.
        const largest = strategy === 'sliding-window' ? Math.min(...limits.map((rate) => rate.limit)) : 1;
        return { channel, cost: Math.min(cost, largest) };
      }),
      persistAt,
      gap,
      corruptions,
    };
  });

type Path = Array<string | number>;

/** Every node under the saved dispatcher, and the context's version: what may be damaged. */
function nodesOf(saved: Record<string, unknown>): Path[] {
  const paths: Path[] = [['context', 'version']];
  const walk = (value: unknown, path: Path) => {
    paths.push(path);
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, [...path, index]);
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key], [...path, key]);
    }
  };
  walk((saved.context as Record<string, unknown>).dispatcher, ['context', 'dispatcher']);
  return paths;
}

function corrupt(saved: Record<string, unknown>, { how, node, pick }: Corruption): void {
  const at = (path: Path) => {
    let parent: Record<string | number, unknown> = saved;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const key = path.at(-1) as string | number;
    return { parent, key, value: parent[key] };
  };
  const paths = nodesOf(saved);
  const nodes = paths.map(at);
  // The policies' histories and the time of the save, where a nudge can read as valid and let more through.
  const inState = (path: Path) =>
    path[2] === 'state' &&
    (path[3] === 'overall' || path[3] === 'channels' || path[3] === 'keys' || path[3] === 'savedAt');
  const numbers = nodes.filter(({ value }, index) => typeof value === 'number' && inState(paths[index] as Path));
  const arrays = nodes.filter(({ value }) => Array.isArray(value));
  if (how === 'nudge' && numbers.length > 0) {
    const { parent, key, value } = numbers[node % numbers.length] as (typeof nodes)[number];
    parent[key] = (NUDGES[pick % NUDGES.length] as (v: number) => number)(value as number);
  } else if (how === 'rearrange' && arrays.length > 0) {
    const { value } = arrays[node % arrays.length] as (typeof nodes)[number];
    (REARRANGEMENTS[pick % REARRANGEMENTS.length] as (a: unknown[]) => void)(value as unknown[]);
  } else {
    const { parent, key } = nodes[node % nodes.length] as (typeof nodes)[number];
    const replacement = NASTY[pick % NASTY.length];
    if (replacement !== MISSING) parent[key] = structuredClone(replacement);
    else if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  }
}

/** A delivery, at the cost the throttler counted it at. */
interface Counted {
  at: number;
  cost: number;
}

/**
 * Over every window [s, s + interval) of every rate that holds a delivery made
 * after the restore, the cost in it, with what the snapshot claims came before,
 * stays within `bound`. Both lists hold one scope's deliveries (overall, or one channel's).
 */
function expectWithin(
  before: Counted[],
  after: Counted[],
  rates: Rate[],
  bound: (rate: Rate) => number,
  scope: string,
) {
  const all = [...before, ...after];
  for (const rate of rates) {
    for (const start of all) {
      const inWindow = (d: Counted) => d.at >= start.at && d.at < start.at + rate.interval;
      if (!after.some(inWindow)) continue;
      const cost = all.filter(inWindow).reduce((total, d) => total + d.cost, 0);
      expect(cost, `${scope} ${rate.limit}/${rate.interval}ms from ${start.at}`).toBeLessThanOrEqual(bound(rate));
    }
  }
}

/** A sliding window's claimed history moved onto the restored clock, in-flight cost settled, as the restore does. */
function claimedDeliveries(state: Record<string, unknown>, shift: number, restoredAt: number): Counted[] {
  const deliveries = (state.deliveries as Array<[number, number]>).map(([at, cost]) => ({ at: at + shift, cost }));
  const inFlight = state.inFlightCost as number;
  const newest = deliveries.at(-1)?.at ?? restoredAt;
  if (inFlight > 0) deliveries.push({ at: Math.max(restoredAt, newest), cost: inFlight });
  return deliveries;
}

/** A channel's state by name: [name, state] pairs (format 2) or an object keyed by name (format 1). */
function channelStates(channels: unknown): Array<[string, Record<string, unknown>]> {
  return Array.isArray(channels) ? channels : Object.entries(channels as Record<string, Record<string, unknown>>);
}

function run(scenario: Scenario): void {
  restoreRealTime();
  useVirtualTime();
  const input: ThrottlerInput = {
    rate: scenario.rates,
    strategy: scenario.strategy,
    channels: Object.fromEntries(scenario.channels),
    keys: scenario.keyRate && { rate: [scenario.keyRate], idleAfter: 1_000 },
    warmup: scenario.strategy === 'warming-up' ? 1_000 : undefined,
    maxBurst: scenario.strategy === 'token-bucket' ? 2 : undefined,
  };
  const actor = createActor(throttlerMachine, { input: { ...input, target: createRecorder().ref } }).start();
  for (const [n, { channel, cost }] of scenario.messages.entries()) {
    actor.send({ type: 'QUEUE', message: { type: 'job', n }, channel, cost, id: n });
  }
  advance(scenario.persistAt);
  const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
  actor.stop();
  advance(scenario.gap);
  for (const corruption of scenario.corruptions) corrupt(saved, corruption);
  const damaged = structuredClone(saved);

  let restored: ReturnType<typeof restoreThrottler>;
  try {
    restored = restoreThrottler(saved);
  } catch (error) {
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    return;
  }
  const restoredAt = performance.now();
  const errors: unknown[] = [];
  restored.subscribe({ error: (error) => errors.push(error) });
  const after: Array<Counted & { channel: string | undefined }> = [];
  const messages: unknown[] = [];
  restored.on('delivered', ({ message, at, cost, channel }) => {
    messages.push(message);
    after.push({ at, cost: cost as number, channel });
  });
  restored.send({ type: 'SET_TARGET', target: createRecorder().ref });
  advance(20_000);
  expect(errors).toEqual([]);
  expect(restored.getSnapshot().status).toBe('active');
  expect(new Set(messages).size, 'each message once').toBe(messages.length);
  restored.stop();

  // The restore succeeded, so the damaged snapshot reads as a valid one: take its options as the limits.
  const dispatcher = damaged.context.dispatcher;
  const { options, state } = dispatcher;
  const strategy = options.strategy ?? 'timer';
  const rates = parseRates(options.rates as RatesInput);
  const channels = (options.channels as Array<[string, RatesInput]>).map(
    ([name, channelRates]) => [name, parseRates(channelRates)] as [string, Rate[]],
  );
  // Keys: every one saved (own rates, or the template's) and every one delivered to after the restore.
  // Keys are read from format 3 only: a format 2 snapshot has none (a `keys` field there is ignored).
  const third = dispatcher.format === 'xstate-throttler/3';
  const keyTemplate =
    !third || options.keys === null || options.keys === undefined ? [] : parseRates(options.keys.rates);
  const savedKeys = new Map(
    ((third ? (state.keys ?? []) : []) as Array<[string, Record<string, unknown>, RatesInput | null]>).map(
      ([name, keyState, own]) => [name, { keyState, rates: own === null ? keyTemplate : parseRates(own) }],
    ),
  );
  const keyNames = new Set([
    ...savedKeys.keys(),
    ...after.flatMap(({ channel }) =>
      channel === undefined || channels.some(([name]) => name === channel) ? [] : [channel],
    ),
  ]);
  const keys = [...keyNames].map((name) => [name, savedKeys.get(name)?.rates ?? keyTemplate] as [string, Rate[]]);
  const scopes: Array<[string | undefined, Rate[]]> = [[undefined, rates], ...channels, ...keys];
  const deliveredIn = (channel: string | undefined) =>
    channel === undefined ? after : after.filter((d) => d.channel === channel);
  if (strategy === 'sliding-window') {
    const savedAt = dispatcher.format === 'xstate-throttler/1' ? Number.NEGATIVE_INFINITY : state.savedAt;
    const shift = restoredAt - Math.max(restoredAt, savedAt);
    const channelState = new Map(channelStates(state.channels));
    for (const [channel, channelRates] of scopes) {
      const saved =
        channel === undefined ? state.overall : (channelState.get(channel) ?? savedKeys.get(channel)?.keyState);
      // A key the snapshot holds no state for (never saved, or cut out) claims no history.
      const before = saved === undefined ? [] : claimedDeliveries(saved, shift, restoredAt);
      expectWithin(before, deliveredIn(channel), channelRates, (rate) => rate.limit, channel ?? 'overall');
    }
    return;
  }
  const maxBurst = options.strategyOptions.maxBurst as number | undefined;
  // Costs of 1 outside the sliding window, unless damaged: a larger one may go ahead of its permits.
  const largestCost = Math.max(1, ...after.map((d) => d.cost));
  const bound = (rate: Rate) =>
    strategy === 'timer'
      ? 2 * rate.limit
      : strategy === 'token-bucket'
        ? (maxBurst ?? rate.limit) + rate.limit + largestCost
        : rate.limit + largestCost;
  for (const [channel, channelRates] of scopes) {
    expectWithin([], deliveredIn(channel), channelRates, bound, channel ?? 'overall');
  }
}

describe('restoring a damaged snapshot', () => {
  it('refuses it with a ThrottlerOptionError, or delivers without an error and within the limits', () => {
    fc.assert(fc.property(scenarioArbitrary, run), { numRuns: runs(400) });
  });
});
