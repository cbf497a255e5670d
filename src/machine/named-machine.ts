import { byAnyName } from '../engine/options/strategy-option.js';
import { describedChart } from './chart-descriptions.js';
import type { PublicMachine } from './public-machine.js';
import { type InternalMachine, machineKnowing } from './throttler-machine.js';

/**
 * The throttler: an XState v5 machine, `idle` or `active`, that queues
 * messages (QUEUE) and forwards them to a target actor (SET_TARGET) no faster
 * than its rate allows. Active if and only if a target is set and a message
 * waits; in `idle` no timer is pending. One wake-up timer at most, re-armed
 * only when its time changes.
 *
 * The switch between the two is a raised event (WORK_WAITING, DRAINED) from the
 * actions that can change it, not an `always` transition: XState evaluates
 * eventless guards after every event, and on the path one message takes that
 * was 8% of the machine's time (bench/README.md, W1).
 *
 * Every event is checked before it changes anything: a bad field is reported
 * (`invalidEvent`, or `rejected` for a message) and the queue stays as it was.
 * An event type the machine does not know is reported too, so a typo shows.
 *
 * Typed as users see it: the public events, input and context (types.ts). Its input may name the strategy
 * (`strategy: 'sliding-window'`), so it imports every strategy; `leanThrottlerMachine` is the same chart without names (nor descriptions).
 */
export const throttlerMachine = /* @__PURE__ */ machineKnowing(
  byAnyName,
  describedChart,
) as unknown as PublicMachine<InternalMachine>;
