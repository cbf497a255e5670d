/**
 * The `features` option: what a throttler loads beyond its core, each a value the app imports, so that a
 * bundler keeps only the features an app passes (ARCHITECTURE.md, "Strategies as values", applied to
 * features). The main entry passes every feature by itself; xstate-throttler/lean loads only those given
 * (`features: [audit]`), and an option or a question that needs a feature not given is refused with what
 * to import. Nothing is registered at import: a feature is only ever read from the options that carry it.
 */

import { ThrottlerOptionError } from '../../rate/index.js';
import type { AuditFeature } from '../audit/audit-feature.js';
import type { DimensionsFeature } from '../clearance/dimensions-feature.js';
import type { SettleFeature } from '../clearance/settle-book.js';
import type { FairnessFeature } from '../fair-share.js';
import type { OverflowFeature } from '../queue/overflow-choice.js';
import type { FeatureName, FeatureValue } from './feature-value.js';
import type { OptionHintsFeature } from './option-hints.js';
import type { TransitFeature } from './transit-feature.js';

/** A feature value, as xstate-throttler/lean exports each (`audit`): what `features` holds. */
export type ThrottlerFeature = FeatureValue;

/**
 * The features a throttler loaded, by name: what the engine reads (`options.features.audit`). The retry,
 * timeout, rate-limit-watch and exact-timers features by name only: the promise API reads the first three
 * (adapters/retry-feature.ts, adapters/task-timeout.ts, adapters/rate-limit-watch.ts), the clock the
 * adapters arm the last (machine/precise-clock.ts).
 */
export interface Features {
  readonly audit?: AuditFeature | undefined;
  readonly dimensions?: DimensionsFeature | undefined;
  readonly exactTimers?: FeatureValue<'exactTimers'> | undefined;
  readonly fairness?: FairnessFeature | undefined;
  readonly optionHints?: OptionHintsFeature | undefined;
  readonly overflow?: OverflowFeature | undefined;
  readonly rateLimitWatch?: FeatureValue<'rateLimitWatch'> | undefined;
  readonly retry?: FeatureValue<'retry'> | undefined;
  readonly settle?: SettleFeature | undefined;
  readonly timeout?: FeatureValue<'timeout'> | undefined;
  readonly transit?: TransitFeature | undefined;
}

/** Every feature by name, with the functions its value holds: a value without them is no feature. */
const FEATURE_FUNCTIONS: Readonly<Record<FeatureName, readonly string[]>> = {
  audit: ['create'],
  dimensions: ['of'],
  exactTimers: ['clock'],
  fairness: ['share', 'before', 'weightOf'],
  optionHints: ['meant'],
  overflow: ['choice'],
  rateLimitWatch: ['watch'],
  retry: ['resolve', 'tracker'],
  settle: ['book'],
  timeout: ['timeouts'],
  transit: ['resolve'],
};
const FEATURE_NAMES = Object.keys(FEATURE_FUNCTIONS) as FeatureName[];

/** Whether `value` is a feature value: a known name and the functions that name holds (a throwing Proxy is not). */
function isFeatureValue(value: unknown): value is FeatureValue {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const name = (value as { feature?: unknown }).feature;
    if (typeof name !== 'string' || !Object.hasOwn(FEATURE_FUNCTIONS, name)) return false;
    const holds = value as Record<string, unknown>;
    return FEATURE_FUNCTIONS[name as FeatureName].every((member) => typeof holds[member] === 'function');
  } catch {
    return false;
  }
}

/**
 * The features a throttler loads: those `given` (checked: an array of feature values) and those its entry
 * loads by itself (`entryFeatures`: the main entry's are every one). Unknown values are refused by index.
 */
export function resolveFeatures(given: unknown, entryFeatures: readonly ThrottlerFeature[] = []): Features {
  if (given !== undefined && !Array.isArray(given)) {
    throw new ThrottlerOptionError('features', 'an array of feature values, e.g. [audit]', given);
  }
  const features: { -readonly [name in keyof Features]: Features[name] } = {};
  for (const [index, feature] of [...(given ?? []), ...entryFeatures].entries()) {
    if (!isFeatureValue(feature)) {
      throw new ThrottlerOptionError(
        `features[${index}]`,
        `a feature value (${FEATURE_NAMES.join(', ')}) imported from "xstate-throttler/lean"`,
        feature,
      );
    }
    Object.assign(features, { [feature.feature]: feature });
  }
  return features;
}

/**
 * The option-name hints among `given` (a `features` option as given, checked later by resolveFeatures) and
 * the entry's own: what checks option names before the options are resolved.
 */
export function optionHintsIn(
  given: unknown,
  entryFeatures: readonly ThrottlerFeature[] = [],
): OptionHintsFeature | undefined {
  const features: readonly unknown[] = Array.isArray(given) ? [...given, ...entryFeatures] : entryFeatures;
  return features.find(
    (feature): feature is OptionHintsFeature => isFeatureValue(feature) && feature.feature === 'optionHints',
  );
}

/**
 * The error for a question or an option that needs a feature the throttler was not given (`need` says
 * which: `'auditThrottler'`), its value the names of the features it has.
 */
export function featureMissing(name: FeatureName, need: string, loaded: object): ThrottlerOptionError {
  return new ThrottlerOptionError(
    'features',
    `a list holding ${name} for ${need}: import { ${name} } from "xstate-throttler/lean" and pass features: [${name}] ` +
      '(the main entry, "xstate-throttler", loads every feature)',
    Object.entries(loaded).flatMap(([loadedName, feature]) => (feature === undefined ? [] : [loadedName])),
  );
}
