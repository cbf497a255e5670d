import type {
  SplitByDimension,
  Strategy,
  StrategyImplementation,
  StrategyName,
  StrategyOptions,
} from '../../policies/index.js';
import {
  checkRateDimensions,
  type Dimensions,
  type DurationInput,
  parseDuration,
  parseRates,
  type Rate,
  type RatesInput,
  ThrottlerOptionError,
} from '../../rate/index.js';
import type { DimensionsFeature } from '../clearance/dimensions-feature.js';
import type { TransitMeter } from '../clearance/transit-meter.js';
import { type Fairness, resolveFairness, type WeightOf } from './fairness-option.js';
import { type Features, featureMissing, resolveFeatures, type ThrottlerFeature } from './features-option.js';
import { type KeysOption, type KeyTemplate, resolveKeys } from './keys-option.js';
import { byAnyName, resolveStrategy, resolveStrategyOptions, type StrategyLookup } from './strategy-option.js';
import type { ResolvedTransit, TransitInput, TransitSetting } from './transit-option.js';

export type { Fairness, WeightOf } from './fairness-option.js';
export type { Features, ThrottlerFeature } from './features-option.js';
export { type KeysOption, type KeyTemplate, unknownChannelError } from './keys-option.js';
export type { TransitInput, TransitSetting } from './transit-option.js';

/** In what order queued messages leave. */
export type Ordering = (typeof ORDERINGS)[number];
const ORDERINGS = ['fifo', 'per-channel'] as const;

/** What happens when a message arrives and the queue already holds `capacity` messages. */
export type Overflow = (typeof OVERFLOWS)[number];
const OVERFLOWS = ['reject', 'drop-oldest', 'drop-newest'] as const;

/** When a delivery stops counting: at its start, or once it has settled. */
export type CountUntil = (typeof COUNT_UNTIL)[number];
const COUNT_UNTIL = ['start', 'done'] as const;

/** How the one wake-up timer is armed: for whole milliseconds, or for the exact moment. */
export type TimerPrecision = (typeof TIMER_PRECISIONS)[number];
const TIMER_PRECISIONS = ['ms', 'exact'] as const;

/** The options shared by the machine's input, `createThrottler` and `throttleQueue`. */
export interface CommonOptions {
  /**
   * `'10/1s'`, `{ limit, interval }`, or several that must all hold: `['10/1s', '500/1m']`. Several
   * dimensions at once, each with its rates, a message's `cost` counted in each:
   * `{ requests: '500/1m', tokens: ['30000/1m', '1000000/1d'] }` (channels and keys then name some of them).
   */
  rate: RatesInput;
  /**
   * Default `'timer'` (Akka's voucher timer); with a `store`, `'sliding-window'`, the strict one, which a
   * store shares exactly (it refuses `'timer'` and `'warming-up'`). Or the strategy as a value from
   * `xstate-throttler/strategies` (`strategy: slidingWindow`), which xstate-throttler/lean requires, or one of
   * your own (`defineStrategy`, docs/strategies.md).
   */
  strategy?: StrategyName | Strategy<string> | undefined;
  /**
   * Per-channel rates, obeyed on top of the overall `rate`: `{ search: '3/1s', upload: '1/1s' }`, or a Map
   * of name to rate. Any name works, `__proto__` included (as a computed key, `{ ['__proto__']: '1/1s' }`).
   */
  channels?: Record<string, RatesInput> | ReadonlyMap<string, RatesInput> | undefined;
  /**
   * Keyed limits: a template rate for keys that appear at run time (per customer, user, host), obeyed on top
   * of the overall `rate`: `{ rate: '5/1s', idleAfter: '5m' }`. A message names its key in `channel`: a name
   * in `channels` is that channel, any other non-empty string (at most 1024 characters) is a key. A key's
   * window is created on its first message and forgotten once it has been idle (no delivery, nothing in
   * flight, nothing waiting) for longer than both `idleAfter` (default 0) and its longest interval.
   */
  keys?: KeysOption | undefined;
  /** `'fifo'` (default): arrival order across channels. `'per-channel'`: order within each channel (and key) only. */
  ordering?: Ordering | undefined;
  /**
   * `'none'` (default). `'weighted'`: while the overall limit binds, each backlogged channel or key gets
   * `weight / Σ weights` of it (weighted fair queueing; priorities still order within a key). Implies
   * `ordering: 'per-channel'` (`'fifo'` is refused). docs/tenants.md.
   */
  fairness?: Fairness | undefined;
  /**
   * With `fairness: 'weighted'`: a channel's or key's weight, asked each time it becomes backlogged; a
   * positive finite number (default 1 for every one). A bad answer or a throw rejects that message.
   */
  weight?: WeightOf | undefined;
  /** token-bucket: permits stored while idle, at most. Default: one interval's worth (the limit). */
  maxBurst?: number | undefined;
  /** warming-up: how long the climb from cold to the full rate takes (`'3s'` or ms). Required for warming-up. */
  warmup?: DurationInput | undefined;
  /** warming-up: how many times slower than the full rate a cold throttler starts. Default 3. */
  coldFactor?: number | undefined;
  /** Most messages waiting at once. Default: unbounded. */
  capacity?: number | undefined;
  /** What a full queue does with the next message. Default `'reject'`. */
  overflow?: Overflow | undefined;
  /**
   * When a delivery stops counting against the window. `'start'` (default): it
   * counts from the moment it is sent. `'done'` (sliding-window only): a task
   * occupies its slot from its start until it settles and counts as delivered
   * at that time, so the remote side never sees more than the limit in flight
   * within one interval. Settling is reported with a SETTLED event (the promise
   * API does it for you).
   */
  countUntil?: CountUntil | undefined;
  /** Most deliveries in flight at once (each until its SETTLED event). Default: unlimited. */
  maxConcurrent?: number | undefined;
  /** The time source, in milliseconds. Default `performance.now()` (monotonic, never the wall clock). */
  now?: (() => number) | undefined;
  /**
   * `'ms'` (default): the wake-up timer is armed for whole milliseconds, rounded up, which is all
   * `setTimeout` counts; each wake comes up to about a millisecond after its moment, and with a
   * strict window that delay carries into every later window. `'exact'`: armed for the exact
   * (fractional) delay, for a clock that keeps it: `preciseClock()`, which `createThrottler` and
   * `throttleQueue` use by themselves unless given a `clock` or `scheduler`. For the machine, pass
   * it to `createActor` as `clock`.
   */
  timerPrecision?: TimerPrecision | undefined;
  /**
   * Most deliveries the throttler makes in one go (one event, or one wake-up) before it yields to
   * the event loop: when more are due, it arms its timer with delay 0 and sends the rest in further
   * slices, each on a later turn, at the same time on its clock, so I/O and timers run in between.
   * A positive integer, or Infinity for no bound. Default 1000.
   */
  maxDeliveriesPerTurn?: number | undefined;
  /**
   * How long a wait outweighs any priority (`'1m'` or ms; default 60 s). A message's rank is its
   * arrival time less `priority × maxPriorityWait / 9`, and the lowest rank goes first: a message is
   * only ever overtaken by one of higher priority that arrived less than
   * `(its priority − this one's) × maxPriorityWait / 9` after it, so once it has waited
   * maxPriorityWait, nothing that arrives later goes before it. No message starves.
   */
  maxPriorityWait?: DurationInput | undefined;
  /**
   * How much the uplink to the server that counts the requests may vary, so that the SERVER's windows hold
   * the limit too, not only the sender's (docs/guarantees.md, "What the server sees"). A duration states the
   * spread (`'150ms'`): sliding-window counts each window that much longer, token-bucket stores that many
   * permits fewer (timer and warming-up refuse it). `'measured'` or `{ measure: true, max: '2s' }`: the
   * promise API measures it from its tasks' round trips (the largest recent one, at most `max`); the default
   * of `createThrottler` with `serverLimits`. 0 or absent: none (the default otherwise).
   */
  transit?: TransitInput | undefined;
  /**
   * sliding-window: spread each window's worth over the window instead of letting it go at the window's
   * start, so that a server never meets a window's requests as one burst (whose queueing a measured
   * `transit` would read as spread). `true`: a delivery of cost c waits `c × interval / limit` after
   * the one before (the largest over the rates); a duration: over at most that span (`'1s'`: a window's
   * worth within a second). The window keeps the guarantee. Default: none.
   */
  pace?: boolean | DurationInput | undefined;
  /**
   * xstate-throttler/lean: the features beyond the core this throttler loads, each a value imported from
   * it (`features: [audit]`), so that an app bundles only those; a question that needs one not given (an
   * `auditThrottler`) is refused with what to import. The main entry loads every feature by itself.
   */
  features?: readonly ThrottlerFeature[] | undefined;
}

/** The options after validation: every rate parsed, every default applied. */
export interface ResolvedOptions {
  readonly rates: Rate[];
  /** The dimensions `rate` names, numbered; undefined when it names none (costs are plain numbers). */
  readonly dimensions: Dimensions | undefined;
  /** The strategy's name: what a saved snapshot and a store's configuration record (one's own: any string). */
  readonly strategy: string;
  /** The strategy itself, which builds the policies. */
  readonly strategyValue: StrategyImplementation;
  readonly channels: ReadonlyMap<string, Rate[]>;
  /** Undefined without the `keys` option: then a name not in `channels` is an error. */
  readonly keys: KeyTemplate | undefined;
  readonly ordering: Ordering;
  readonly fairness: Fairness;
  /** Undefined: every channel and key weighs 1. */
  readonly weight: WeightOf | undefined;
  readonly strategyOptions: StrategyOptions;
  readonly capacity: number;
  readonly overflow: Overflow;
  readonly countUntil: CountUntil;
  readonly maxConcurrent: number;
  readonly now: () => number;
  readonly timerPrecision: TimerPrecision;
  readonly maxDeliveriesPerTurn: number;
  readonly maxPriorityWait: number;
  /** The transit spread as saved: J in ms (0: none), or measured. */
  readonly transit: TransitSetting;
  /** With a measured transit: the meter the promise API reports its tasks to (never saved). */
  readonly transitMeter: TransitMeter | undefined;
  /** The features loaded: those given and the entry's own (never saved: a restore passes its own). */
  readonly features: Features;
  /** With dimensions: what splits a strategy's policy by them (the dimensions feature's; never saved). */
  readonly splitByDimension: SplitByDimension | undefined;
}

/** How long a wait outweighs any priority, by default (CommonOptions.maxPriorityWait). */
export const DEFAULT_MAX_PRIORITY_WAIT = 60_000;

/** Deliveries in one go by default: about half a millisecond of work at the machine's batch speed. */
export const DEFAULT_MAX_DELIVERIES_PER_TURN = 1000;

/** `"a", "b" or "c"`: how an error lists the values an option may take. */
function spelled(values: readonly string[]): string {
  const quoted = values.map((value) => `"${value}"`);
  return quoted.length === 1 ? (quoted[0] as string) : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** The one check for every option that takes one of a list of names; the list is also the option's type. */
function checkOneOf<T extends string>(
  option: string,
  allowed: readonly T[],
  value: unknown,
  requirement = spelled(allowed),
): T {
  if (!allowed.includes(value as T)) throw new ThrottlerOptionError(option, requirement, value);
  return value as T;
}

export const monotonicNow = (): number => performance.now();

/** Whether deliveries count until they settle (SETTLED events): with `maxConcurrent` or `countUntil: 'done'`. */
export function tracksInFlight(options: ResolvedOptions): boolean {
  return options.countUntil === 'done' || options.maxConcurrent !== Number.POSITIVE_INFINITY;
}

/** `overflow` checked; 'drop-oldest' and 'drop-newest' need the overflow feature, refused without it. */
function resolveOverflow(given: unknown, features: Features): Overflow {
  const overflow = checkOneOf('overflow', OVERFLOWS, withDefault(given as Overflow | undefined, 'reject'));
  if (overflow !== 'reject' && !features.overflow) throw featureMissing('overflow', `overflow "${overflow}"`, features);
  return overflow;
}

/** Only a missing option takes its default: `null` is a value, and is refused like any other bad one. */
function withDefault<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/** The `channels` option: each channel's rates parsed, in the dimensions `rate` names. */
function resolveChannels(input: CommonOptions['channels'], dimensions: Dimensions | undefined): Map<string, Rate[]> {
  const channels = new Map<string, Rate[]>();
  if (input === undefined) return channels;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ThrottlerOptionError('channels', 'an object of channel name to rate', input);
  }
  // Own keys only: a name is data, never a property of Object.prototype.
  const entries = input instanceof Map ? input : Object.entries(input);
  for (const [name, channelRate] of entries) {
    if (typeof name !== 'string') throw new ThrottlerOptionError('channels', 'a Map whose keys are strings', name);
    channels.set(name, parseRates(channelRate, `channels.${name}`));
    checkRateDimensions(channels.get(name) as Rate[], dimensions, `channels.${name}`);
  }
  return channels;
}

/** Validates options up front, a strategy given by name among every strategy (the main entry's). */
export function resolveOptions(options: CommonOptions | undefined): ResolvedOptions {
  return resolveOptionsKnowing(options, byAnyName);
}

/**
 * Validates options up front; every error names the option and the value. A strategy that is not a value
 * (a name, or nothing) is read by the entry's `lookup`: every name (byAnyName), or none (byValueOnly, lean).
 */
export function resolveOptionsKnowing(options: CommonOptions | undefined, lookup: StrategyLookup): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object with at least a rate, e.g. { rate: "10/1s" }', options);
  }
  // With a store, the default is the one strict strategy it shares: 'timer' cannot be shared.
  const strategyValue = resolveStrategy(options.strategy, (options as { store?: unknown }).store !== undefined, lookup);
  const strategy = strategyValue.name;
  const rates = parseRates(options.rate, 'rate');
  const features = resolveFeatures(options.features, lookup.features);
  const { dimensions, split: splitByDimension } = dimensionsOf(rates, features);
  const channels = resolveChannels(options.channels, dimensions);
  const keys = resolveKeys(options.keys);
  if (keys !== undefined) checkRateDimensions(keys.rates, dimensions, 'keys.rate');
  const { fairness, weight, ordering } = resolveFairness(
    options,
    options.ordering === undefined ? undefined : checkOneOf('ordering', ORDERINGS, options.ordering),
  );
  // The finish tags are the fairness feature's (fair-share.ts): refused without it, saying what to import.
  if (fairness === 'weighted' && !features.fairness) throw featureMissing('fairness', 'fairness "weighted"', features);
  const overflow = resolveOverflow(options.overflow, features);
  const capacity = withDefault(options.capacity, Number.POSITIVE_INFINITY);
  if (capacity !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(capacity) || capacity <= 0)) {
    throw new ThrottlerOptionError('capacity', 'a positive integer', capacity);
  }
  const countUntil = checkOneOf('countUntil', COUNT_UNTIL, withDefault(options.countUntil, 'start'));
  // Read from the value (Strategy.settlesInFlight); the sliding window is the library's one that does.
  if (countUntil === 'done' && !strategyValue.settlesInFlight) {
    const requirement = strategyValue.own
      ? `"start" with strategy "${strategyValue.name}", which does not settle in flight (settlesInFlight)`
      : '"start" unless strategy is "sliding-window"';
    throw new ThrottlerOptionError('countUntil', requirement, countUntil);
  }
  const maxConcurrent = withDefault(options.maxConcurrent, Number.POSITIVE_INFINITY);
  if (maxConcurrent !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(maxConcurrent) || maxConcurrent <= 0)) {
    throw new ThrottlerOptionError('maxConcurrent', 'a positive integer', maxConcurrent);
  }
  const now = withDefault(options.now, monotonicNow);
  if (typeof now !== 'function') {
    throw new ThrottlerOptionError('now', 'a function returning the time in milliseconds', now);
  }
  const timerPrecision = checkOneOf('timerPrecision', TIMER_PRECISIONS, withDefault(options.timerPrecision, 'ms'));
  const maxDeliveriesPerTurn = withDefault(options.maxDeliveriesPerTurn, DEFAULT_MAX_DELIVERIES_PER_TURN);
  if (
    maxDeliveriesPerTurn !== Number.POSITIVE_INFINITY &&
    (!Number.isSafeInteger(maxDeliveriesPerTurn) || maxDeliveriesPerTurn <= 0)
  ) {
    throw new ThrottlerOptionError('maxDeliveriesPerTurn', 'a positive integer or Infinity', maxDeliveriesPerTurn);
  }
  const maxPriorityWait = parseDuration(
    withDefault(options.maxPriorityWait, DEFAULT_MAX_PRIORITY_WAIT),
    'maxPriorityWait',
  );
  const rateLists = rateListsOf(rates, channels, keys);
  const transit = transitOf(options.transit, features)?.(options.transit, strategyValue, rateLists) ?? NO_TRANSIT;
  return {
    rates,
    dimensions,
    strategy,
    strategyValue,
    channels,
    keys,
    ordering,
    fairness,
    weight,
    strategyOptions: resolveStrategyOptions(strategyValue, options, rateLists, transit.spread),
    capacity,
    overflow,
    countUntil,
    maxConcurrent,
    now,
    timerPrecision,
    maxDeliveriesPerTurn,
    maxPriorityWait,
    transit: transit.setting,
    transitMeter: transit.meter,
    features,
    splitByDimension,
  };
}

/** The dimensions `rates` name, by the dimensions feature: refused without it (xstate-throttler/lean). */
function dimensionsOf(
  rates: readonly Rate[],
  features: Features,
): Partial<NonNullable<ReturnType<DimensionsFeature['of']>>> {
  const named = rates.find((rate) => rate.dimension !== undefined)?.dimension;
  if (named === undefined) return {};
  if (features.dimensions === undefined) throw featureMissing('dimensions', `rate.${named}`, features);
  return features.dimensions.of(rates) ?? {};
}

/** No transit spread: the option absent or 0. */
const NO_TRANSIT: ResolvedTransit = { setting: 0, spread: undefined, meter: undefined };

/** What reads a `transit` other than absent or 0: the transit feature's; refused without it (xstate-throttler/lean). */
function transitOf(input: unknown, features: Features) {
  if (input === undefined || input === 0) return undefined;
  if (features.transit === undefined) throw featureMissing('transit', 'a transit other than 0', features);
  return features.transit.resolve;
}

/** Every rate list configured, by the option that holds it: what a strategy checks its options against. */
function rateListsOf(rates: Rate[], channels: Map<string, Rate[]>, keys: KeyTemplate | undefined) {
  const rateLists = new Map<string, readonly Rate[]>([['rate', rates]]);
  for (const [name, channelRates] of channels) rateLists.set(`channels.${name}`, channelRates);
  if (keys !== undefined) rateLists.set('keys.rate', keys.rates);
  return rateLists;
}
