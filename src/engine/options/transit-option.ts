import type { StrategyImplementation, TransitSpread } from '../../policies/index.js';
import {
  type DurationInput,
  longestIntervalOf,
  parseDuration,
  type Rate,
  ThrottlerOptionError,
} from '../../rate/index.js';
import { statedSpread, TransitMeter } from '../clearance/transit-meter.js';

/**
 * The `transit` option: how much the uplink to the server that counts the requests may vary. A duration states
 * the spread J (`'150ms'`); `'measured'` (or `{ measure: true, max: '2s' }`) has the promise API measure it from
 * its tasks' round trips, at most `max`; 0 or absent: none.
 */
export type TransitInput =
  | DurationInput
  | 'measured'
  | { readonly measure: true; readonly max?: DurationInput | undefined };

/** The option resolved, as it is saved (and read back as an input): J in ms (0: none), or measured. */
export type TransitSetting = number | { readonly measure: true; readonly max?: number | undefined };

/** The resolved option and what the policies read: none, a constant, or the meter the promise API feeds. */
export interface ResolvedTransit {
  readonly setting: TransitSetting;
  readonly spread: TransitSpread | undefined;
  /** Present when measured: what the promise API reports its tasks' starts and outcomes to. */
  readonly meter: TransitMeter | undefined;
}

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

/**
 * A measured transit needs the promise API, which sees each task's start and outcome: anything else (the
 * machine's input, a restore, the RxJS operator) would measure nothing and widen nothing. Refused by name.
 */
export function refuseMeasuredTransit<T extends { readonly transit: TransitSetting }>(options: T, face: string): T {
  const transit = options.transit;
  if (typeof transit === 'number') return options;
  throw new ThrottlerOptionError(
    'transit',
    `a duration or 0 for ${face}: "measured" needs createThrottler, which sees each task's start and outcome`,
    transit,
  );
}

/**
 * With a store every process must widen by the same spread, the one the store is configured with: a measured
 * one differs by process and over time. Refused by name.
 */
export function refuseMeasuredWithStore(transit: TransitSetting): void {
  if (typeof transit === 'number') return;
  throw new ThrottlerOptionError(
    'transit',
    'a duration or 0 with a store: every process widens its windows by the one spread the store is configured with, and a measured spread differs by process and over time',
    transit,
  );
}
