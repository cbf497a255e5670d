/**
 * A feature as an app holds it (options/features-option.ts): a value to pass in `features`, named by its
 * `feature`; what it holds is the library's, reached only through the throttler that loads it.
 */
export interface FeatureValue<Name extends FeatureName = FeatureName> {
  readonly feature: Name;
}

/** Every feature, by the name its value carries. */
export type FeatureName =
  | 'audit'
  | 'dimensions'
  | 'exactTimers'
  | 'fairness'
  | 'optionHints'
  | 'overflow'
  | 'rateLimitWatch'
  | 'retry'
  | 'settle'
  | 'timeout'
  | 'transit';
