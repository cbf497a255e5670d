import { formatRate, parseRates, type Rate, ThrottlerOptionError } from '../rate/index.js';
import type { SharedLimiterConfig } from './protocol.js';

/** The strategies a shared store can keep exactly. */
export type SharedStrategy = 'sliding-window' | 'token-bucket';

/** A validated configuration, and its canonical JSON as the scripts compare and read it. */
export interface DeclaredConfig {
  readonly strategy: SharedStrategy;
  readonly rates: Rate[];
  /** Rates in dimensions: the dimensions' names in the order `rate` names them (the scripts number them from 1). */
  readonly dims: readonly string[] | undefined;
  /** Sorted by name, so that the same channels always give the same JSON. */
  readonly channels: ReadonlyMap<string, Rate[]>;
  /** The keys' template rates (keyed limits), or undefined: then a name not in `channels` is refused. */
  readonly keys: Rate[] | undefined;
  readonly maxBurst: number | undefined;
  readonly maxReserveAheadMs: number;
  /** sliding-window: how long after its time a grant may still be sent (0 for token-bucket). */
  readonly grantGraceMs: number;
  readonly testClock: boolean;
  /** What the first process stores and every other must send unchanged. */
  readonly json: string;
}

const MAX_DEFAULT_RESERVE_AHEAD_MS = 60_000;
/** How late after its time a throttler's grant may still be sent, by default: a loaded event loop's timer lateness. */
export const DEFAULT_GRANT_GRACE_MS = 20;

/** Microseconds, rounded up: a window a fraction of a µs longer is stricter, never looser. */
export function toMicros(ms: number): number {
  return Math.ceil(ms * 1000 - 1e-6);
}

/**
 * Rates as the scripts read them: `[[limit, interval in µs], ...]`; in dimensions
 * `[[limit, µs, dimension number from 1], ...]`.
 */
export function ratesJson(rates: readonly Rate[], dims?: readonly string[]): string {
  return JSON.stringify(
    rates.map((rate) =>
      dims === undefined
        ? [rate.limit, toMicros(rate.interval)]
        : [rate.limit, toMicros(rate.interval), dims.indexOf(rate.dimension as string) + 1],
    ),
  );
}

/**
 * Checks that rates fit the store's dimensions (all in dimensions it has, or none without any),
 * refused with a ThrottlerOptionError naming `option` and the value.
 */
export function checkStoreDims(rates: readonly Rate[], dims: readonly string[] | undefined, option: string): void {
  for (const rate of rates) {
    if (dims === undefined ? rate.dimension !== undefined : !dims.includes(rate.dimension as string)) {
      throw new ThrottlerOptionError(
        option,
        dims === undefined
          ? "rates without dimensions (the store's rate names none)"
          : `rates in the store's dimensions (${dims.map((name) => JSON.stringify(name)).join(', ')})`,
        rates,
      );
    }
  }
}

/** Validates what a throttler opens the store with; every error names the option and the value. */
export function declareConfig(config: SharedLimiterConfig, testClock: boolean): DeclaredConfig {
  if (typeof config !== 'object' || config === null) {
    throw new ThrottlerOptionError('options', 'an object with at least a rate and a strategy', config);
  }
  const strategy = config.strategy;
  if (strategy !== 'sliding-window' && strategy !== 'token-bucket') {
    throw new ThrottlerOptionError(
      'strategy',
      '"sliding-window" or "token-bucket" with a shared store (the others cannot be kept exactly across processes)',
      strategy,
    );
  }
  if (config.countUntil !== undefined && config.countUntil !== 'start') {
    throw new ThrottlerOptionError(
      'countUntil',
      '"start" with a shared store (a slot held until "done" would be lost with the process holding it)',
      config.countUntil,
    );
  }
  if (config.ordering !== undefined && config.ordering !== 'fifo' && config.ordering !== 'per-channel') {
    throw new ThrottlerOptionError('ordering', '"fifo" or "per-channel"', config.ordering);
  }
  const transit = readStoreTransit(config.transit, strategy);
  const { rates, dims, channels, keys } = parseAllRates(config, transit);
  const maxBurst = config.maxBurst;
  if (maxBurst !== undefined && (typeof maxBurst !== 'number' || !Number.isFinite(maxBurst) || maxBurst <= 0)) {
    throw new ThrottlerOptionError('maxBurst', 'a positive number of permits', maxBurst);
  }
  const maxReserveAheadMs = config.maxReserveAheadMs ?? defaultReserveAhead(rates, channels, keys);
  if (typeof maxReserveAheadMs !== 'number' || !Number.isFinite(maxReserveAheadMs) || maxReserveAheadMs < 0) {
    throw new ThrottlerOptionError('maxReserveAheadMs', 'a finite number of milliseconds >= 0', maxReserveAheadMs);
  }
  const grantGraceMs = config.grantGraceMs ?? 0;
  if (typeof grantGraceMs !== 'number' || !Number.isFinite(grantGraceMs) || grantGraceMs < 0 || grantGraceMs > 60_000) {
    throw new ThrottlerOptionError('grantGraceMs', 'a number of milliseconds from 0 to 60000', grantGraceMs);
  }
  if (grantGraceMs > 0 && strategy !== 'sliding-window') {
    throw new ThrottlerOptionError('grantGraceMs', '0 unless strategy is "sliding-window"', grantGraceMs);
  }
  const json = JSON.stringify({
    v: 1,
    strategy,
    // Only with dimensions, as keys below: a fleet without them keeps the JSON it had.
    ...(dims === undefined ? {} : { dims }),
    // Only with a spread, as keys below; compared before the rates it widens, so a conflict names it.
    ...(transit === 0 ? {} : { transit: toMicros(transit) }),
    rates: JSON.parse(ratesJson(rates, dims)),
    channels: [...channels].map(([name, channelRates]) => [name, JSON.parse(ratesJson(channelRates, dims))]),
    // Only with keys: a configuration without them reads as it did before keys existed, so a fleet
    // that does not use them shares its state with processes of the previous version.
    ...(keys === undefined ? {} : { keys: JSON.parse(ratesJson(keys, dims)) }),
    maxBurst: strategy === 'token-bucket' ? (maxBurst ?? null) : null,
    ahead: toMicros(maxReserveAheadMs),
    grace: toMicros(grantGraceMs),
    test: testClock,
  });
  return { strategy, rates, dims, channels, keys, maxBurst, maxReserveAheadMs, grantGraceMs, testClock, json };
}

/** Every rate list of the configuration, each interval widened by the transit spread. */
function parseAllRates(config: SharedLimiterConfig, transit: number) {
  const rates = widened(parseRates(config.rates, 'rate'), transit);
  const dims = dimensionsOf(rates);
  const channels = parseChannels(config.channels, dims);
  for (const [name, channelRates] of channels) channels.set(name, widened(channelRates, transit));
  const keys = config.keys === undefined ? undefined : widened(parseRates(config.keys, 'keys.rate'), transit);
  if (keys !== undefined) checkStoreDims(keys, dims, 'keys.rate');
  return { rates, dims, channels, keys };
}

/**
 * The stated transit spread (`transit`), checked: a sliding window keeps it in its intervals (`widened`); the
 * store's token bucket has one capacity for all its rates and takes none yet.
 */
function readStoreTransit(transit: unknown, strategy: SharedStrategy): number {
  if (transit === undefined || transit === 0) return 0;
  if (typeof transit !== 'number' || !Number.isFinite(transit) || transit < 0) {
    throw new ThrottlerOptionError('transit', 'a finite number of milliseconds >= 0', transit);
  }
  if (strategy !== 'sliding-window') {
    throw new ThrottlerOptionError(
      'transit',
      '0 with a shared store unless strategy is "sliding-window" (the store\'s token bucket keeps one capacity for all its rates, which a spread would reduce by a different amount for each)',
      transit,
    );
  }
  return transit;
}

/** Rates whose windows are `transit` ms longer: what the server's windows of the rates need at the sender. */
function widened(rates: Rate[], transit: number): Rate[] {
  return transit === 0 ? rates : rates.map((rate) => ({ ...rate, interval: rate.interval + transit }));
}

function parseChannels(
  input: SharedLimiterConfig['channels'],
  dims: readonly string[] | undefined,
): Map<string, Rate[]> {
  if (input === undefined) return new Map();
  let entries: Array<[string, unknown]>;
  if (input instanceof Map) entries = [...input];
  else if (typeof input === 'object' && input !== null && !Array.isArray(input)) entries = Object.entries(input);
  else throw new ThrottlerOptionError('channels', 'a Map or an object of channel name to rate', input);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const channels = new Map<string, Rate[]>();
  for (const [name, rates] of entries) {
    const channelRates = parseRates(rates as never, `channels.${name}`);
    checkStoreDims(channelRates, dims, `channels.${name}`);
    channels.set(name, channelRates);
  }
  return channels;
}

/** The dimensions the rates name, in the order they first appear (as the engine numbers them); undefined when none. */
function dimensionsOf(rates: readonly Rate[]): string[] | undefined {
  const names: string[] = [];
  for (const rate of rates)
    if (rate.dimension !== undefined && !names.includes(rate.dimension)) names.push(rate.dimension);
  return names.length === 0 ? undefined : names;
}

function defaultReserveAhead(
  rates: readonly Rate[],
  channels: ReadonlyMap<string, Rate[]>,
  keys: readonly Rate[] | undefined,
): number {
  let shortest = MAX_DEFAULT_RESERVE_AHEAD_MS;
  for (const rate of [...rates, ...(keys ?? [])]) shortest = Math.min(shortest, rate.interval);
  for (const channelRates of channels.values())
    for (const rate of channelRates) shortest = Math.min(shortest, rate.interval);
  // Three quarters of it: a window's holder that acts up to a quarter interval late can still move its
  // grants before the next window is reserved (bench/analysis.md, W6 at start).
  return Math.floor((shortest * 3) / 4);
}

/** Reads the scripts' `[[limit, µs], ...]` (in dimensions `[[limit, µs, d], ...]`) back into rates. */
export function ratesFromJson(json: string, dims?: readonly string[]): Rate[] {
  return (JSON.parse(json) as Array<[number, number, number?]>).map(([limit, micros, d]) => {
    const dimension = d === undefined ? undefined : dims?.[d - 1];
    return dimension === undefined ? { limit, interval: micros / 1000 } : { limit, interval: micros / 1000, dimension };
  });
}

/**
 * Which option of a stored configuration differs from ours, for the conflict error. Compares the
 * canonical JSON field by field, in the order a user would look.
 */
export function firstDifference(
  ours: DeclaredConfig,
  storedJson: string,
): { option: string; value: unknown; stored: unknown } {
  let stored: Record<string, unknown>;
  try {
    stored = JSON.parse(storedJson) as Record<string, unknown>;
  } catch {
    return { option: 'name', value: ours.json, stored: storedJson };
  }
  const mine = JSON.parse(ours.json) as Record<string, unknown>;
  const labels: Record<string, string> = {
    strategy: 'strategy',
    transit: 'transit',
    dims: 'rate',
    rates: 'rate',
    channels: 'channels',
    keys: 'keys',
    maxBurst: 'maxBurst',
    ahead: 'maxReserveAheadMs',
    grace: 'grantGraceMs',
    test: 'testClock',
  };
  for (const [field, option] of Object.entries(labels)) {
    if (JSON.stringify(mine[field]) !== JSON.stringify(stored[field])) {
      return { option, value: readable(field, mine[field]), stored: readable(field, stored[field]) };
    }
  }
  return { option: 'name', value: ours.json, stored: storedJson };
}

/** Rates back in ms for messages, so users see what they wrote. */
function readable(field: string, value: unknown): unknown {
  const rates = (list: unknown) =>
    Array.isArray(list)
      ? list
          .map((pair) => (Array.isArray(pair) ? formatRate({ limit: pair[0], interval: pair[1] / 1000 }) : pair))
          .join(', ')
      : list;
  if (field === 'rates' || field === 'keys') return rates(value);
  if (field === 'channels' && Array.isArray(value)) {
    return Object.fromEntries(value.map((entry) => (Array.isArray(entry) ? [entry[0], rates(entry[1])] : [entry, ''])));
  }
  if ((field === 'ahead' || field === 'grace' || field === 'transit') && typeof value === 'number') return value / 1000;
  if (field === 'transit') return 0;
  return value;
}
