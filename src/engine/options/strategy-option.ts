/**
 * The `strategy` option and the options only some strategies read. A strategy is a name, resolved where
 * names are known (the main entry), or a value from xstate-throttler/strategies, taken as it is: the lean
 * entry knows no names, so that a bundle holds only the strategies the app hands it.
 */
import {
  isStrategy,
  STRATEGIES,
  type StrategyImplementation,
  type StrategyName,
  type StrategyOptions,
  strategyNamed,
  strategyValueName,
  type TransitSpread,
} from '../../policies/index.js';
import { type DurationInput, parseDuration, type Rate, ThrottlerOptionError } from '../../rate/index.js';
import { EVERY_FEATURE } from './every-feature.js';
import type { ThrottlerFeature } from './features-option.js';
import { type PaceInput, resolvePace } from './pace-option.js';

/**
 * How an entry reads a `strategy` that is not a strategy value (a name, or nothing), answering the strategy
 * or throwing the ThrottlerOptionError that says what to pass, and the features it loads whatever the
 * options say (features-option.ts). Each entry holds only its own.
 */
export interface StrategyLookup {
  (value: unknown, hasStore: boolean): StrategyImplementation;
  /** Loaded by the entry itself: the main entry's every feature; none for xstate-throttler/lean's. */
  readonly features?: readonly ThrottlerFeature[];
}

/**
 * The strategy `value` stands for: a strategy value as it is, anything else as the entry's `lookup` reads it.
 * A strategy of one's own is refused with a store: the store's scripts run the library's algorithms only.
 */
export function resolveStrategy(value: unknown, hasStore: boolean, lookup: StrategyLookup): StrategyImplementation {
  if (!isStrategy(value)) return lookup(value, hasStore);
  if (hasStore && value.own) {
    throw new ThrottlerOptionError(
      'strategy',
      `"sliding-window" or "token-bucket" with a store, whose scripts run only the library's algorithms`,
      value.name,
    );
  }
  return value;
}

/**
 * The main entry's lookup: every strategy by name; nothing takes `'timer'`, or with a store
 * `'sliding-window'`, the strict one a store shares ('timer' cannot be shared).
 */
export const byAnyName: StrategyLookup = /* @__PURE__ */ Object.assign(anyName, { features: EVERY_FEATURE });

function anyName(value: unknown, hasStore: boolean): StrategyImplementation {
  const name = value === undefined ? (hasStore ? 'sliding-window' : 'timer') : value;
  const strategy = typeof name === 'string' ? strategyNamed(name) : undefined;
  if (strategy !== undefined) return strategy;
  const names = `one of ${STRATEGIES.map((known) => `"${known}"`).join(', ')}`;
  const requirement =
    typeof value === 'object' && value !== null
      ? `${names}, or a strategy value from xstate-throttler/strategies (one of your own made by defineStrategy)`
      : names;
  throw new ThrottlerOptionError('strategy', requirement, value);
}

/** xstate-throttler/lean's lookup: no name is known, and nothing is no default; the error says what to import. */
export const byValueOnly: StrategyLookup = (value) => {
  const valueName = strategyValueName(STRATEGIES.includes(value as StrategyName) ? (value as StrategyName) : 'timer');
  throw new ThrottlerOptionError(
    'strategy',
    `a strategy value (xstate-throttler/lean knows no strategy by name): import { ${valueName} } from ` +
      `"xstate-throttler/strategies" and pass strategy: ${valueName}`,
    value,
  );
};

/** The options only some strategies read, as given. */
export interface StrategyOptionsInput {
  maxBurst?: number | undefined;
  warmup?: DurationInput | undefined;
  coldFactor?: number | undefined;
  pace?: PaceInput | undefined;
  /** Read by `pace`, which refuses `'done'`. */
  countUntil?: unknown;
}

/**
 * Checks maxBurst, warmup, coldFactor and pace, then what the strategy itself asks of them with every rate
 * configured (warming-up: its curve stays finite; a SET_RATE's new rate is checked again as its policy is built).
 */
export function resolveStrategyOptions(
  strategy: StrategyImplementation,
  { maxBurst, warmup, coldFactor, pace, countUntil }: StrategyOptionsInput,
  rateLists: ReadonlyMap<string, readonly Rate[]>,
  transit?: TransitSpread,
): StrategyOptions {
  if (maxBurst !== undefined && (typeof maxBurst !== 'number' || !Number.isFinite(maxBurst) || maxBurst <= 0)) {
    throw new ThrottlerOptionError('maxBurst', 'a positive number of permits', maxBurst);
  }
  if (maxBurst !== undefined && maxBurst > Number.MAX_SAFE_INTEGER) {
    throw new ThrottlerOptionError(
      'maxBurst',
      'at most 2^53 - 1: above that, taking a permit out of the store leaves the count unchanged (a burst without end)',
      maxBurst,
    );
  }
  if (coldFactor !== undefined && (typeof coldFactor !== 'number' || !Number.isFinite(coldFactor) || coldFactor < 1)) {
    throw new ThrottlerOptionError('coldFactor', 'a finite number >= 1', coldFactor);
  }
  const options = {
    maxBurst,
    coldFactor,
    warmup: warmup === undefined ? undefined : parseDuration(warmup, 'warmup'),
    ...(transit === undefined ? {} : { transit }),
    pace: resolvePace(pace, strategy, countUntil),
  };
  return strategy.checkOptions?.(options, rateLists) ?? options;
}

/** The lookup of a machine whose every input comes resolved (the adapters'): never asked. */
export const byValueResolved: StrategyLookup = (value) => {
  throw new ThrottlerOptionError('strategy', 'a strategy value', value);
};
