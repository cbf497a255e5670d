import { AllOfPolicies, type AllOfState } from '../all-of.js';
import type { ThrottlePolicy } from '../policy.js';
import type { Strategy, StrategyImplementation } from '../strategy.js';
import { VoucherTimerPolicy, type VoucherTimerState } from '../timer.js';

/** How the strategy builds its policy and checks its options, out of its public type. */
const implementation = {
  name: 'timer' as const,
  leases: false,
  settlesInFlight: false,
  retimesLateGrants: false,
  createPolicy: (rates, _options, now): ThrottlePolicy<AllOfState> =>
    new AllOfPolicies<VoucherTimerState>(rates, (rate) => new VoucherTimerPolicy(rate), now),
  transitRefusal:
    'the voucher timer keeps no window even at the sender (up to twice the limit in one interval), so it has none to widen for the server: use "sliding-window" or "token-bucket"',
  paceRefusal: 'the voucher timer keeps no window to spread: use "sliding-window"',
} satisfies StrategyImplementation;

/**
 * Akka's voucher timer: `limit` vouchers a period, the period starting as the throttler becomes active. Typed as users see it, by its name.
 */
export const timer: Strategy<'timer'> = implementation;
