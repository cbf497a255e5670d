import type { ThrottlePolicy } from '../../src/policies/index.js';

/**
 * A caller of a policy in the style of Guava's RateLimiter tests: `acquire`
 * blocks until the permit is granted (the clock moves to the grant) and
 * returns the wait; `sleep` lets time pass unused; `now` is the caller's clock,
 * which starts at `startAt`.
 */
export function limiterClock(policy: ThrottlePolicy, startAt = 0) {
  let clock = startAt;
  return {
    acquire(cost = 1): number {
      const grantedAt = policy.earliestDelivery(clock, cost);
      policy.recordDelivery(grantedAt, cost);
      const wait = grantedAt - clock;
      clock = grantedAt;
      return wait;
    },
    acquireMany(count: number): number[] {
      return Array.from({ length: count }, () => this.acquire());
    },
    sleep(ms: number): void {
      clock += ms;
    },
    now: () => clock,
  };
}
