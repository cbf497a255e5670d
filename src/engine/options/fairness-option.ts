import { describeValue, ThrottlerOptionError } from '../../rate/index.js';

/** How the overall limit is shared while it binds: `'none'` (by rank and arrival) or `'weighted'` (fair shares). */
export type Fairness = (typeof FAIRNESS)[number];
const FAIRNESS = ['none', 'weighted'] as const;

/** A key's or channel's weight, asked once each time it becomes backlogged: a positive finite number. */
export type WeightOf = (key: string) => number;

/** The orderings (options.ts's `Ordering`, repeated here so that the two files do not import each other). */
type Ordering = 'fifo' | 'per-channel';

/** The fairness options as given. */
export interface FairnessOptions {
  fairness?: Fairness | undefined;
  weight?: WeightOf | undefined;
}

/** The fairness options after validation, and the ordering they leave in force. */
export interface ResolvedFairness {
  readonly fairness: Fairness;
  /** Undefined: every key and channel weighs 1. */
  readonly weight: WeightOf | undefined;
  readonly ordering: Ordering;
}

/**
 * Checks `fairness` and `weight`. Weighted fairness chooses among the heads of the channels and keys,
 * so it implies `ordering: 'per-channel'` and refuses `'fifo'` given explicitly (global arrival order
 * leaves nothing to share); `weight` without it would be ignored, so it is refused too.
 */
export function resolveFairness(options: FairnessOptions, ordering: Ordering | undefined): ResolvedFairness {
  const fairness = options.fairness === undefined ? 'none' : options.fairness;
  if (!FAIRNESS.includes(fairness)) throw new ThrottlerOptionError('fairness', '"none" or "weighted"', fairness);
  const { weight } = options;
  if (fairness === 'none') {
    if (weight !== undefined) {
      throw new ThrottlerOptionError('weight', 'undefined unless fairness is "weighted"', weight);
    }
    return { fairness, weight: undefined, ordering: ordering ?? 'fifo' };
  }
  if (ordering === 'fifo') {
    throw new ThrottlerOptionError('fairness', '"none" with ordering "fifo" (it orders per channel)', fairness);
  }
  if (weight !== undefined && typeof weight !== 'function') {
    throw new ThrottlerOptionError('weight', 'a function (key) => number', weight);
  }
  return { fairness, weight, ordering: 'per-channel' };
}

/**
 * Calls the weight function for a key (or channel) that became backlogged and checks its answer: a
 * ThrottlerOptionError naming `weight`, the key and the value, or the error it threw, as its cause.
 */
export function weightOf(weight: WeightOf | undefined, key: string): number {
  if (weight === undefined) return 1;
  let value: unknown;
  let threw = false;
  try {
    value = weight(key);
  } catch (error) {
    threw = true;
    value = error;
  }
  // Its reciprocal finite too: a cost / weight of Infinity would stop every finish tag after it.
  if (!threw && typeof value === 'number' && Number.isFinite(value) && Number.isFinite(1 / value) && value > 0)
    return value;
  const refused = new ThrottlerOptionError(
    `weight(${describeValue(key)})`,
    threw
      ? 'a positive finite number, not a throw'
      : typeof value === 'number' && value > 0 && !Number.isFinite(1 / value)
        ? 'a positive finite number whose reciprocal is finite too'
        : 'a positive finite number',
    threw && value instanceof Error ? value.message : value,
  );
  if (threw) (refused as { cause?: unknown }).cause = value;
  throw refused;
}
