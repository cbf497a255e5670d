/**
 * `wrap` and `acquire`, two shorthands over a throttler's `schedule`: a function whose every call is
 * scheduled, and a task that only measures its wait (rounded to the microsecond: a difference of two
 * clock readings carries float noise, 1.8916679999999815 for 1.892).
 */
import type { ScheduleOptions, Throttler } from './promise-api.js';

export function wrapWith(schedule: Throttler['schedule']): Throttler['wrap'] {
  return <A extends unknown[], R, This = unknown>(
    fn: (this: This, ...args: A) => R | PromiseLike<R>,
    options?: ScheduleOptions<Awaited<R>>,
  ) =>
    function (this: This, ...args: A): Promise<Awaited<R>> {
      return schedule(() => fn.apply(this, args), options);
    };
}

export function acquireWith(schedule: Throttler['schedule'], now: () => number): Throttler['acquire'] {
  return (cost, options) => {
    const askedAt = now();
    const waited = () => Math.round((now() - askedAt) * 1_000) / 1_000;
    try {
      return schedule(waited, { ...options, ...(cost === undefined ? {} : { cost }) });
    } catch (error) {
      return Promise.reject(error); // An options getter or Proxy that throws: refused as schedule refuses it.
    }
  };
}
