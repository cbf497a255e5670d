import type { TransitSpread } from '../../policies/index.js';
import { type DurationInput, ThrottlerOptionError } from '../../rate/index.js';
import type { TransitMeter } from '../clearance/transit-meter.js';

/**
 * The `transit` option's types and the refusals by name that every entry makes; the option is read by the
 * transit feature (transit-feature.ts). The `transit` option: how much the uplink to the server that counts the requests may vary. A duration states
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
