/**
 * The `transit` option read, as a feature value (features-option.ts): a stated spread, or the measured meter
 * (clearance/transit-meter.ts). The main entry loads it by itself; xstate-throttler/lean only with
 * `features: [transit]`, without which a `transit` other than 0 is refused with what to import (and
 * `serverLimits` measures none by default).
 */
import type { StrategyImplementation } from '../../policies/index.js';
import {
  type DurationInput,
  longestIntervalOf,
  parseDuration,
  type Rate,
  ThrottlerOptionError,
} from '../../rate/index.js';
import { statedSpread, TransitMeter } from '../clearance/transit-meter.js';
import type { FeatureValue } from './feature-value.js';
import type { ResolvedTransit, TransitSetting } from './transit-option.js';

/** The transit feature: `transit` checked with the strategy's answer, and what the policies read. */
export interface TransitFeature extends FeatureValue<'transit'> {
  readonly resolve: typeof resolveTransit;
}

const transitFeature: TransitFeature = { feature: 'transit', resolve: (...args) => resolveTransit(...args) };

/** The uplink's spread (`transit: '150ms'` or `'measured'`): pass it in `features` to xstate-throttler/lean. */
export const transit: FeatureValue<'transit'> = transitFeature;

const REQUIREMENT =
  'a duration (the uplink\'s spread, e.g. "150ms"), "measured", { measure: true, max?: duration } or 0';

/** `transit` checked, with the strategy's answer: one with nothing to widen refuses it by name, saying why. */
export function resolveTransit(
  input: unknown,
  strategy: StrategyImplementation,
  rateLists: ReadonlyMap<string, readonly Rate[]>,
): ResolvedTransit {
  const setting = readTransitSetting(input);
  if (setting === 0) return { setting, spread: undefined, meter: undefined };
  if (strategy.transitRefusal !== undefined) {
    throw new ThrottlerOptionError(
      'transit',
      `0 or absent with strategy "${strategy.name}": ${strategy.transitRefusal}`,
      input,
    );
  }
  if (typeof setting === 'number') return { setting, spread: statedSpread(setting), meter: undefined };
  const meter = new TransitMeter(longestIntervalOf(rateLists.values()), setting.max ?? DEFAULT_MEASURED_TRANSIT_MAX);
  return { setting, spread: meter, meter };
}

/**
 * The most a measured J may reach without a stated `max`: an uplink slower than a second is taken as a long
 * answer, not a long uplink, so that one task hanging without a timeout cannot slow the throttler to a crawl
 * (its age would count in flight for ever).
 */
const DEFAULT_MEASURED_TRANSIT_MAX = 1_000;

function readTransitSetting(input: unknown): TransitSetting {
  if (input === undefined || input === 0) return 0;
  if (input === 'measured') return { measure: true };
  if (typeof input === 'number' || typeof input === 'string') {
    if (typeof input === 'number' && !(input >= 0)) throw new ThrottlerOptionError('transit', REQUIREMENT, input);
    return parseDuration(input, 'transit');
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ThrottlerOptionError('transit', REQUIREMENT, input);
  }
  for (const name of Object.keys(input)) {
    if (name !== 'measure' && name !== 'max')
      throw new ThrottlerOptionError(
        `transit.${name}`,
        'absent: transit takes measure and max',
        (input as Record<string, unknown>)[name],
      );
  }
  const { measure, max } = input as { measure?: unknown; max?: unknown };
  if (measure !== true)
    throw new ThrottlerOptionError('transit.measure', 'true (a stated spread is a duration)', measure);
  if (max === undefined || max === null) return { measure: true };
  return { measure: true, max: parseDuration(max as DurationInput, 'transit.max') };
}
