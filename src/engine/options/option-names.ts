/**
 * Option names checked against the ones a call knows: TypeScript refuses an unknown name at compile
 * time, plain JavaScript would otherwise ignore it (a `concurrency: 2` meant as a limit, silently none).
 * The error names the option and its value and says what was meant (option-hints.ts), or lists the
 * options where the hints are not loaded.
 */
import { describeValue, ThrottlerOptionError } from '../../rate/index.js';
import type { OptionHintsFeature } from './option-hints.js';
import type { CommonOptions } from './options.js';

/** Every option of CommonOptions: a Record, so the compiler fails when one is added and not listed here. */
const COMMON: Record<keyof CommonOptions, true> = {
  rate: true,
  strategy: true,
  channels: true,
  keys: true,
  ordering: true,
  fairness: true,
  weight: true,
  maxBurst: true,
  warmup: true,
  coldFactor: true,
  capacity: true,
  overflow: true,
  countUntil: true,
  maxConcurrent: true,
  now: true,
  timerPrecision: true,
  maxDeliveriesPerTurn: true,
  maxPriorityWait: true,
  transit: true,
  pace: true,
  features: true,
};

/** The names every face of the throttler takes (its own come on top). */
export const COMMON_OPTION_NAMES: readonly string[] = Object.keys(COMMON);

/**
 * Throws a ThrottlerOptionError for the first own enumerable name of `options` not in `known`
 * (nor CommonOptions' when `common`). `where` says whose options they are. With `hints` (the optionHints
 * feature: every entry but xstate-throttler/lean without it) the error says what was meant, else it lists
 * the options.
 */
export function checkOptionNames(
  options: object,
  known: readonly string[],
  where: string,
  common = false,
  hints?: OptionHintsFeature,
): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name) || (common && Object.hasOwn(COMMON, name))) continue;
    const value = (options as Readonly<Record<string, unknown>>)[name];
    if (value === undefined) continue;
    const candidates = common ? [...COMMON_OPTION_NAMES, ...known] : known;
    const meant = hints?.meant(name, value, options, candidates);
    const error = new ThrottlerOptionError(name, 'a known option', value);
    error.message =
      `${name} is not an option of ${where} (got ${describeValue(value)})` +
      (meant === undefined ? `; the options are ${candidates.join(', ')}` : `: did you mean ${meant}?`);
    throw error;
  }
}
