import { SlidingWindowPolicy } from '../sliding-window.js';
import type { Strategy, StrategyImplementation } from '../strategy.js';

/** How the strategy builds its policy and checks its options, out of its public type. */
const implementation = {
  name: 'sliding-window' as const,
  // Every delivery on one log with its time: a lease, a settle in flight and a retimed grant stay strict.
  leases: true,
  settlesInFlight: true,
  retimesLateGrants: true,
  createPolicy: (rates, options) =>
    new SlidingWindowPolicy(
      rates,
      options.transit,
      options.pace === undefined ? undefined : options.pace === true ? Number.POSITIVE_INFINITY : options.pace,
    ),
} satisfies StrategyImplementation;

/**
 * The strict one: never more than the limit's cost in any window of the interval; every rate on one log. Typed as users see it, by its name.
 */
export const slidingWindow: Strategy<'sliding-window'> = implementation;
