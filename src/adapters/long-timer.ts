/**
 * The promise API's own timers, a task's `timeout` and a retry's backoff, on the throttler's clock.
 * A delay of 2^31 ms or more (`'30d'`) would fire at once (Node's setTimeout, and XState's clock over
 * it, overflow), so it is armed in chunks of at most MAX_TIMER_DELAY, as the machine's wake-up is.
 * A timer released (`release`, at stop()) no longer holds the process open, and still fires if the
 * process lives on: after stop() only what the caller holds keeps a process alive.
 */

import type { Clock } from '../machine/index.js';
import { MAX_TIMER_DELAY, unrefTimeout } from '../machine/index.js';

export class LongTimer {
  private handle: unknown;
  private released = false;

  constructor(
    private readonly clock: Clock,
    callback: () => void,
    delay: number,
  ) {
    this.arm(callback, delay);
  }

  private arm(callback: () => void, left: number): void {
    const chunk = Math.min(left, MAX_TIMER_DELAY);
    this.handle = this.clock.setTimeout(left > chunk ? () => this.arm(callback, left - chunk) : callback, chunk);
    if (this.released) unrefTimeout(this.handle);
  }

  cancel(): void {
    this.clock.clearTimeout(this.handle as ReturnType<typeof setTimeout>);
  }

  /** It no longer holds the process open (where the clock's timers can say so: Node's). */
  release(): void {
    this.released = true;
    unrefTimeout(this.handle);
  }
}
