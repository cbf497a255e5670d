/**
 * The `features` option: what a throttler loads beyond its core, each a value the app imports, so that a
 * bundler keeps only the features an app passes (ARCHITECTURE.md, "Strategies as values", applied to
 * features). The main entry passes every feature by itself; xstate-throttler/lean loads only those given
 * (`features: [audit]`), and an option or a question that needs a feature not given is refused with what
 * to import. Nothing is registered at import: a feature is only ever read from the options that carry it.
 */

import type { DimensionsFeature } from '../../policies/index.js';
import { ThrottlerOptionError } from '../../rate/index.js';
import type { AuditFeature } from '../audit/audit-feature.js';
import type { OptionHintsFeature } from './option-hints.js';

/** A feature value, as xstate-throttler/lean exports each (`audit`). */
export type ThrottlerFeature = AuditFeature | DimensionsFeature | OptionHintsFeature;

/** The features a throttler loaded, by name: what the engine reads (`options.features.audit`). */
export interface Features {
  readonly audit?: AuditFeature | undefined;
  readonly dimensions?: DimensionsFeature | undefined;
  readonly optionHints?: OptionHintsFeature | undefined;
}

/** Every feature's name, as its value's `feature` field holds it. */
const FEATURE_NAMES: readonly ThrottlerFeature['feature'][] = ['audit', 'dimensions', 'optionHints'];

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
    const name = (feature as { feature?: unknown } | null)?.feature;
    if (typeof feature !== 'object' || !FEATURE_NAMES.includes(name as ThrottlerFeature['feature'])) {
      throw new ThrottlerOptionError(
        `features[${index}]`,
        `a feature value (${FEATURE_NAMES.join(', ')}) imported from "xstate-throttler/lean"`,
        feature,
      );
    }
    Object.assign(features, { [name as ThrottlerFeature['feature']]: feature });
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
  return features.find((feature): feature is OptionHintsFeature => isFeature(feature, 'optionHints'));
}

function isFeature(value: unknown, name: ThrottlerFeature['feature']): boolean {
  return typeof value === 'object' && value !== null && (value as { feature?: unknown }).feature === name;
}

/**
 * The error for a question or an option that needs a feature the throttler was not given (`need` says
 * which: `'auditThrottler'`), its value the names of the features it has.
 */
export function featureMissing(
  name: ThrottlerFeature['feature'],
  need: string,
  loaded: Features,
): ThrottlerOptionError {
  return new ThrottlerOptionError(
    'features',
    `a list holding ${name} for ${need}: import { ${name} } from "xstate-throttler/lean" and pass features: [${name}] ` +
      '(the main entry, "xstate-throttler", loads every feature)',
    Object.keys(loaded),
  );
}
