/**
 * Rates in dimensions as a feature value (engine/options/features-option.ts): what numbers a throttler's
 * dimensions and splits a strategy's policy by dimension (DimensionsPolicy). The main entry loads it by
 * itself; xstate-throttler/lean only with `features: [dimensions]`, so an app whose rates name no
 * dimension does not bundle it.
 */
import { type CostPolicy, DimensionsPolicy, type SplitByDimension } from '../../policies/index.js';
import { Dimensions, type Rate } from '../../rate/index.js';
import type { FeatureValue } from '../options/feature-value.js';

/** The dimensions feature: a throttler's dimensions read from its rates, and the policy split they make. */
export interface DimensionsFeature extends FeatureValue<'dimensions'> {
  /** The dimensions `rates` name, with the split of a policy by them; undefined when they name none. */
  readonly of: (rates: readonly Rate[]) => { dimensions: Dimensions; split: SplitByDimension } | undefined;
}

const dimensionsFeature: DimensionsFeature = {
  feature: 'dimensions',
  of: (rates) => {
    const named = Dimensions.of(rates);
    if (named === undefined) return undefined;
    return {
      dimensions: named,
      split: (group, inner, now) => new DimensionsPolicy(group, named, inner, now) as CostPolicy,
    };
  },
};

/** Rates and costs in several dimensions at once: pass it in `features` to xstate-throttler/lean. */
export const dimensions: FeatureValue<'dimensions'> = dimensionsFeature;
