/**
 * The machine's own events, which are not part of the public `ThrottlerEvent`: the wake-up timer
 * (WAKE), the switch between `idle` and `active` (WORK_WAITING, DRAINED), a store's answers (CLEARANCE,
 * STORE_STATUS, STORE_SLOW, STORE_REWOUND) and the promise API's lease (LEASE, LEASE_END; engine/clearance/lease.ts). Each
 * carries a mark only this library sets: the machine tells its own events from a user's event of the
 * same type, which it refuses as an unknown type (`invalidEvent`) and which changes nothing. The
 * fixed ones are shared frozen objects, so marking them costs nothing per event.
 */
import type { GrantsRewoundReason, StoreConflict } from '../engine/clearance/clearance.js';
import type { Lease } from '../engine/clearance/lease.js';

/** Set on every event the library sends to its own machine; never on a user's. */
export const OWN_EVENT: unique symbol = Symbol('xstate-throttler own event');

/** What every own event carries. */
export interface Own {
  readonly [OWN_EVENT]: true;
}

/**
 * Permits valid now for a sender that starts the work itself: the machine writes into `lease.granted`
 * how many messages of cost 1 on no channel may start at this moment, at most `want` (0 while anything
 * waits, while a listener hears `delivered`, with deliveries tracked in flight, with a store, or with a
 * strategy other than sliding-window). The sender starts up to that many synchronously, counting each
 * in `lease.spent`, then sends LEASE_END in the same synchronous stretch; any other event ends the
 * lease first. What was spent is recorded as delivered when the lease ends.
 */
export interface LeaseEvent extends Own {
  type: 'LEASE';
  want: number;
  lease: Lease;
}

/** From a store's clearance: it stopped answering, or answers again. */
export interface StoreStatusEvent extends Own {
  type: 'STORE_STATUS';
  up: boolean;
  error?: Error | undefined;
}

/** From a store's clearance: it refused a call for this throttler's configuration (storeConflict). */
export interface StoreConflictEvent extends Own {
  type: 'STORE_STATUS';
  conflict: StoreConflict;
}

/** From a store's clearance: the shared state was lost; nothing is granted before `quarantinedUntil`. */
export interface StoreQuarantinedEvent extends Own {
  type: 'STORE_STATUS';
  quarantinedUntil: number;
}

/** From a store's clearance: its link is slower than its grace (storeSlow). */
export interface StoreSlowEvent extends Own {
  type: 'STORE_SLOW';
  roundTripMs: number;
  graceMs: number;
}

/** From a store's clearance: grants given back or moved (storeGrantsRewound). */
export interface StoreRewoundEvent extends Own {
  type: 'STORE_REWOUND';
  given: number;
  retimed: number;
  reason: GrantsRewoundReason;
}

export type OwnEvent =
  | LeaseEvent
  | StoreRewoundEvent
  | StoreStatusEvent
  | StoreConflictEvent
  | StoreQuarantinedEvent
  | StoreSlowEvent
  /** Ends the open lease: what it spent is recorded (lease.ts). */
  | ({ type: 'LEASE_END' } & Own)
  /** The one wake-up timer fired. */
  | ({ type: 'WAKE' } & Own)
  /** From a store's clearance: an answer arrived; deliver what is due (as WAKE). */
  | ({ type: 'CLEARANCE' } & Own)
  | ({ type: 'WORK_WAITING' } & Own)
  /** A target that had not started when it was set has started (target-start.ts): deliver to it now. */
  | ({ type: 'TARGET_STARTED' } & Own)
  | ({ type: 'DRAINED' } & Own);

export const WAKE_EVENT = Object.freeze({ type: 'WAKE', [OWN_EVENT]: true } as const);
export const WORK_WAITING_EVENT = Object.freeze({ type: 'WORK_WAITING', [OWN_EVENT]: true } as const);
export const DRAINED_EVENT = Object.freeze({ type: 'DRAINED', [OWN_EVENT]: true } as const);
export const CLEARANCE_EVENT = Object.freeze({ type: 'CLEARANCE', [OWN_EVENT]: true } as const);
export const LEASE_END_EVENT = Object.freeze({ type: 'LEASE_END', [OWN_EVENT]: true } as const);
export const TARGET_STARTED_EVENT = Object.freeze({ type: 'TARGET_STARTED', [OWN_EVENT]: true } as const);

export function leaseEvent(want: number, lease: Lease): LeaseEvent {
  return { type: 'LEASE', want, lease, [OWN_EVENT]: true };
}

export function storeStatusEvent(up: boolean, error: Error | undefined): StoreStatusEvent {
  return { type: 'STORE_STATUS', up, error, [OWN_EVENT]: true };
}

export function storeConflictEvent(conflict: StoreConflict): StoreConflictEvent {
  return { type: 'STORE_STATUS', conflict, [OWN_EVENT]: true };
}

export function storeQuarantinedEvent(quarantinedUntil: number): StoreQuarantinedEvent {
  return { type: 'STORE_STATUS', quarantinedUntil, [OWN_EVENT]: true };
}

export function storeSlowEvent(roundTripMs: number, graceMs: number): StoreSlowEvent {
  return { type: 'STORE_SLOW', roundTripMs, graceMs, [OWN_EVENT]: true };
}

export function storeRewoundEvent(given: number, retimed: number, reason: GrantsRewoundReason): StoreRewoundEvent {
  return { type: 'STORE_REWOUND', given, retimed, reason, [OWN_EVENT]: true };
}

/** Whether the library sent this event: false for one of the same type sent by a user. */
export function isOwnEvent(event: object): boolean {
  return (event as Partial<Own>)[OWN_EVENT] === true;
}

/** The event types a user sends (the machine's own, own-events.ts, are refused from outside). */
export const EVENT_TYPES = [
  'QUEUE',
  'QUEUE_BATCH',
  'SET_TARGET',
  'SET_RATE',
  'CANCEL',
  'PAUSE',
  'RESUME',
  'SETTLED',
  'ACTUAL_COST',
  'TRY_ACQUIRE',
] as const;

/** First for each of the machine's own events: the same type sent by a user is refused as unknown. */
export const REFUSED_FROM_OUTSIDE = {
  guard: 'sentFromOutside',
  actions: 'refuseUnknownEvent',
  description: "The machine's own event type, sent from outside: reported as invalidEvent.",
} as const;
