import type { AnyActorRef, AnyEventObject } from 'xstate';
import { DeliveryPacer } from './delivery-pacer.js';
import { Dispatcher } from './dispatcher.js';
import { MonotoneClock } from './monotone-clock.js';
import type { ResolvedOptions } from './options.js';
import type { ThrottlerContext } from './types.js';

/**
 * A throttler's context as it starts: for a new machine (from its input) and
 * for `restoreThrottler` (which then loads the saved state into the
 * dispatcher), so that both build the same thing. Throws a ThrottlerOptionError
 * when `now()` does not return a finite time. `deliveryGate` is an adapter's
 * (a restored throttler has none).
 */
export function initialContext(
  options: ResolvedOptions,
  target: AnyActorRef | undefined,
  version = 0,
  deliveryGate?: () => boolean,
): ThrottlerContext {
  const clock = new MonotoneClock(options.now);
  const dispatcher = new Dispatcher<AnyEventObject>(options, clock.now(), clock.now);
  return {
    dispatcher,
    now: clock.now,
    clock,
    pacer: new DeliveryPacer(options.maxDeliveriesPerTurn, deliveryGate),
    target,
    wakeAt: Number.POSITIVE_INFINITY,
    counts: { ...dispatcher.counts },
    inFlight: dispatcher.inFlightCount,
    version,
  };
}
