/**
 * The machine as the library's own code sees it: the full context (the dispatcher, the guarded clock,
 * the pacer), every event it handles (the public ones and its own, own-events.ts) and the adapters'
 * input (its delivery gate). Users see the narrower public types of types.ts (throttler-machine.ts exports the machine
 * typed with them).
 */
import type { AnyEventObject } from 'xstate';
import type { Dispatcher } from '../engine/dispatcher.js';
import type { PolicyFaults } from '../policies/own-policy.js';
import type { DeliveryPacer } from './delivery-pacer.js';
import type { MonotoneClock } from './monotone-clock.js';
import type { OwnEvent } from './own-events.js';
import type { ThrottlerContext, ThrottlerEvent, ThrottlerInput } from './types.js';

export interface MachineContext extends ThrottlerContext {
  /** The queue and the policies; mutated only by the machine's own actions. */
  readonly dispatcher: Dispatcher<AnyEventObject>;
  /** The time now: the `now` option's reading, checked and never running backwards. */
  readonly now: () => number;
  /** What `now` reads through; it keeps what went wrong with the source until the machine reports it. */
  readonly clock: MonotoneClock;
  /** How many more sends this turn may make, and the adapter's gate; scratch state, never saved. */
  readonly pacer: DeliveryPacer;
  /** The adapter's check of a message's kind (MachineInput[MESSAGE_CHECK]); never saved. */
  readonly messageCheck: ((message: AnyEventObject) => Error | undefined) | undefined;
  /** A strategy of one's own: its policies' breaches of the contract, until reported (`strategyError`); never saved. */
  readonly strategyFaults: PolicyFaults | undefined;
}

/** Every event the machine handles: a user's, and its own (marked, own-events.ts). */
export type MachineEvent = ThrottlerEvent | OwnEvent;

/** Where an adapter puts its delivery gate in the input: a symbol, so that no user option can set it. */
export const DELIVERY_GATE: unique symbol = Symbol('xstate-throttler delivery gate');

/** Where an adapter puts its message check in the input: a symbol, for the same reason. */
export const MESSAGE_CHECK: unique symbol = Symbol('xstate-throttler message check');

/** The input as the adapters give it. */
export interface MachineInput extends ThrottlerInput {
  /**
   * For adapters that run code inside a delivery (the promise API's tasks): asked before each
   * delivery made while the throttler handles an event or a wake-up, only when a message is due. False
   * holds that message and the rest: the throttler goes on after the events waiting in its mailbox
   * (a PAUSE or SET_RATE the task just sent), on a zero-delay wake-up, or sooner on a WAKE the adapter
   * sends when its gate reopens (the promise API does: a zero-delay wake-up is a `setImmediate` that
   * fake timers may not run). Without it, events sent back during a delivery take effect once the
   * delivery pass is over, as with any actor.
   */
  [DELIVERY_GATE]?: (() => boolean) | undefined;
  /**
   * For adapters whose target can take only their own messages (the promise API's tasks): the error for
   * a message it could not take, or undefined. Such a message, sent to the actor directly, is rejected
   * (`rejected`, reason 'invalid', with that error) instead of delivered. Asked once per message taken in.
   */
  [MESSAGE_CHECK]?: ((message: AnyEventObject) => Error | undefined) | undefined;
}
