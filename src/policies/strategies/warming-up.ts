import { ThrottlerOptionError } from '../../rate/index.js';
import { AllOfPolicies, type AllOfState } from '../all-of.js';
import type { ThrottlePolicy } from '../policy.js';
import type { SmoothRateState } from '../smooth-rate.js';
import type { Strategy, StrategyImplementation } from '../strategy.js';
import { WarmingUpPolicy, warmUpCurve } from '../warming-up.js';

/** The default cold factor: a cold throttler starts three times slower than the full rate. */
const DEFAULT_COLD_FACTOR = 3;

/** How the strategy builds its policy and checks its options, out of its public type. */
const implementation = {
  name: 'warming-up' as const,
  leases: false,
  settlesInFlight: false,
  retimesLateGrants: false,
  createPolicy: (rates, options, now): ThrottlePolicy<AllOfState> =>
    new AllOfPolicies<SmoothRateState>(
      rates,
      (rate, at) => new WarmingUpPolicy(rate, at, options.warmup as number, options.coldFactor ?? DEFAULT_COLD_FACTOR),
      now,
    ),
  transitRefusal:
    'warming-up stores no burst it could give up for the spread (a server would see its rate over the interval plus the spread): use "token-bucket" or "sliding-window"',
  paceRefusal: 'it spaces every permit already',
  // `warmup` is required, and the curve's arithmetic must stay finite with every rate configured (a SET_RATE's
  // new rate is checked again as its policy is built).
  checkOptions: ({ warmup, coldFactor = DEFAULT_COLD_FACTOR, maxBurst }, rateLists) => {
    if (warmup === undefined) {
      throw new ThrottlerOptionError('warmup', 'a positive duration for the warming-up strategy, e.g. "3s"', warmup);
    }
    for (const [option, list] of rateLists) {
      for (const [index, rate] of list.entries())
        warmUpCurve(rate, warmup, coldFactor, list.length > 1 ? `${option}[${index}]` : option);
    }
    return { warmup, coldFactor, maxBurst };
  },
} satisfies StrategyImplementation;

/**
 * Guava's SmoothWarmingUp: from `coldFactor` times slower to the full rate over `warmup` ms of use. Typed as users see it, by its name.
 */
export const warmingUp: Strategy<'warming-up'> = implementation;
