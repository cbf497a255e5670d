import { AllOfPolicies, type AllOfState } from '../all-of.js';
import type { ThrottlePolicy } from '../policy.js';
import type { SmoothRateState } from '../smooth-rate.js';
import type { Strategy, StrategyImplementation } from '../strategy.js';
import { checkTransitCapacity, TokenBucketPolicy } from '../token-bucket.js';

/** How the strategy builds its policy and checks its options, out of its public type. */
const implementation = {
  name: 'token-bucket' as const,
  leases: false,
  settlesInFlight: false,
  retimesLateGrants: false,
  createPolicy: (rates, options, now): ThrottlePolicy<AllOfState> =>
    new AllOfPolicies<SmoothRateState>(
      rates,
      (rate, at) => new TokenBucketPolicy(rate, at, options.maxBurst, options.transit),
      now,
    ),
  paceRefusal: 'it spaces its refill already (lower maxBurst to pace its burst)',
  // A transit spread shrinks every bucket by its rate's permits over the spread: each must keep one.
  checkOptions: (options, rateLists) => {
    const most = options.transit?.most;
    if (most === undefined) return options;
    for (const list of rateLists.values()) for (const rate of list) checkTransitCapacity(rate, options.maxBurst, most);
    return options;
  },
} satisfies StrategyImplementation;

/**
 * Guava's SmoothBursty: the rate evenly spaced, with up to `maxBurst` permits stored while idle. Typed as users see it, by its name.
 */
export const tokenBucket: Strategy<'token-bucket'> = implementation;
