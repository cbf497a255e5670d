import type { AnyActorRef, AnyEventObject } from 'xstate';
import type { ThrottleStore } from '../engine/clearance/clearance.js';
import { Dispatcher } from '../engine/dispatcher.js';
import type { ResolvedOptions } from '../engine/options/options.js';
import { refusePaceWithStore } from '../engine/options/pace-option.js';
import type { StrategyLookup } from '../engine/options/strategy-option.js';
import { refuseMeasuredWithStore } from '../engine/options/transit-option.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { DeliveryPacer } from './delivery-pacer.js';
import { checkTarget } from './event-checks.js';
import { DELIVERY_GATE, type MachineContext, type MachineInput, MESSAGE_CHECK } from './machine-types.js';
import { MonotoneClock } from './monotone-clock.js';
import {
  CLEARANCE_EVENT,
  storeConflictEvent,
  storeQuarantinedEvent,
  storeRewoundEvent,
  storeSlowEvent,
  storeStatusEvent,
} from './own-events.js';
import { optionsOfInput } from './resolved-input.js';
import { listensTo } from './xstate-internals.js';

/** What else a throttler starts with besides its options and target. */
export interface ContextExtras {
  /** Changes with every event; a restored throttler goes on from its saved one. */
  version?: number;
  /** An adapter's gate before each send (a restored throttler has none). */
  deliveryGate?: (() => boolean) | undefined;
  /** An adapter's check of a message's kind (a restored throttler has none). */
  messageCheck?: ((message: AnyEventObject) => Error | undefined) | undefined;
  /** A shared store that answers instead of the local policies, and how to reach the actor it wakes. */
  store?: { store: ThrottleStore; actor: () => AnyActorRef | undefined } | undefined;
  /** The throttler's own actor, once it exists: whether a listener hears its deliveries is asked of it. */
  self?: (() => AnyActorRef | undefined) | undefined;
}

/**
 * A throttler's context as it starts: for a new machine (from its input) and
 * for `restoreThrottler` (which then loads the saved state into the
 * dispatcher), so that both build the same thing. Throws a ThrottlerOptionError
 * when `now()` does not return a finite time, or the store cannot share the options.
 */
export function initialContext(
  given: ResolvedOptions,
  target: AnyActorRef | undefined,
  { version = 0, deliveryGate, messageCheck, store, self }: ContextExtras = {},
): MachineContext {
  // A strategy of one's own reports its policies' breaches to this throttler's sink (policies/own-policy.ts).
  const strategyFaults = given.strategyValue.createFaults?.();
  const options =
    strategyFaults === undefined
      ? given
      : { ...given, strategyOptions: { ...given.strategyOptions, faults: strategyFaults } };
  const clock = new MonotoneClock(options.now);
  // A store answers asynchronously: it wakes the actor with an event, never during one of its calls.
  const clearance = store?.store.clearanceFor(options, {
    now: clock.now,
    wake: () => store.actor()?.send(CLEARANCE_EVENT),
    status: (up, error) => store.actor()?.send(storeStatusEvent(up, error)),
    conflict: (conflict) => store.actor()?.send(storeConflictEvent(conflict)),
    quarantined: (quarantinedUntil) => store.actor()?.send(storeQuarantinedEvent(quarantinedUntil)),
    slow: (roundTripMs, graceMs) => store.actor()?.send(storeSlowEvent(roundTripMs, graceMs)),
    rewound: (given, retimed, reason) => store.actor()?.send(storeRewoundEvent(given, retimed, reason)),
  });
  const dispatcher = new Dispatcher<AnyEventObject>(options, clock.now(), clock.now, clearance);
  return {
    dispatcher,
    now: clock.now,
    clock,
    pacer: new DeliveryPacer(
      options.maxDeliveriesPerTurn,
      deliveryGate,
      heard(self, 'delivered'),
      heard(self, 'queued'),
      heard(self, 'dequeued'),
    ),
    messageCheck,
    strategyFaults,
    target,
    wakeAt: Number.POSITIVE_INFINITY,
    counts: { ...dispatcher.counts },
    inFlight: dispatcher.inFlightCount,
    version,
  };
}

/** The `store` input checked: undefined, or something that builds a clearance. */
export function checkStore(store: unknown): ThrottleStore | undefined {
  if (store === undefined) return undefined;
  if (typeof store !== 'object' || store === null || typeof (store as ThrottleStore).clearanceFor !== 'function') {
    throw new ThrottlerOptionError(
      'store',
      'a store from createRedisStore (xstate-throttler/redis) or createMemoryStore (xstate-throttler/store)',
      store,
    );
  }
  return store as ThrottleStore;
}

/**
 * The `store` option checked against the options, opening nothing: throws the ThrottlerOptionError the
 * store would throw as the throttler starts (an option it cannot share), so that the adapters throw at the call.
 */
export function checkStoreFits(store: unknown, options: ResolvedOptions): ThrottleStore | undefined {
  const checked = checkStore(store);
  if (checked !== undefined) refuseMeasuredWithStore(options.transit);
  if (checked !== undefined) refusePaceWithStore(options.strategyOptions.pace);
  checked?.check?.(options);
  return checked;
}

/** A store's clearance holds a subscription and reservations: it closes when its actor stops (or errors). */
export function closeClearanceOnStop(actor: AnyActorRef, context: MachineContext): void {
  const clearance = context.dispatcher.clearance as { close?: () => void };
  if (typeof clearance.close !== 'function') return;
  const close = (): void => clearance.close?.();
  actor.subscribe({ complete: close, error: close });
}

/** A new throttler's context from its input (checked whole: options, target, the adapters' hooks, the store). */
/** Whether the actor has a listener for `type`; yes when the actor is unknown. */
function heard(self: (() => AnyActorRef | undefined) | undefined, type: string): () => boolean {
  return () => {
    const actor = self?.();
    return actor === undefined || listensTo(actor, type);
  };
}

/** `lookup`: how a strategy that is not a value is read (every name, or none: the lean machine). */
export function contextFromInput(input: MachineInput, self: AnyActorRef, lookup: StrategyLookup): MachineContext {
  const options = optionsOfInput(input, lookup);
  const target = checkTarget(input.target);
  // Keyed by a symbol: only the adapters give it (machine-types.ts).
  const deliveryGate = input[DELIVERY_GATE];
  const messageCheck = input[MESSAGE_CHECK];
  if (deliveryGate !== undefined && typeof deliveryGate !== 'function') {
    throw new ThrottlerOptionError('deliveryGate', 'a function', deliveryGate);
  }
  if (messageCheck !== undefined && typeof messageCheck !== 'function') {
    throw new ThrottlerOptionError('messageCheck', 'a function', messageCheck);
  }
  const store = checkStore(input.store);
  const context = initialContext(options, target, {
    deliveryGate,
    messageCheck,
    store: store && { store, actor: () => self },
    self: () => self,
  });
  closeClearanceOnStop(self, context);
  return context;
}
