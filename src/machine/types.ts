import type { ActorOptions, AnyActorLogic, AnyActorRef, AnyEventObject, EventObject } from 'xstate';
import type { StoreConflict, ThrottleStore } from '../engine/clearance/clearance.js';
import type { Lease } from '../engine/clearance/lease.js';
import type { Dispatcher } from '../engine/dispatcher.js';
import type { ThrottleOptions } from '../engine/options/options.js';
import type { DropReason, ThrottlerCounts } from '../engine/queue/message-queues.js';
import type { RatesInput } from '../rate/index.js';
import type { DeliveryPacer } from './delivery-pacer.js';
import type { MonotoneClock } from './monotone-clock.js';

/** The machine's input: the throttle options, and optionally the first target. */
export interface ThrottlerInput extends ThrottleOptions {
  /** Where messages go. Can be set (and changed, or unset) later with SET_TARGET. */
  target?: AnyActorRef | undefined;
  /**
   * For adapters that run code inside a delivery (the promise API's tasks): asked before each
   * delivery made while the throttler handles an event or a wake-up, only when a message is due. False
   * holds that message and the rest: the throttler goes on after the events waiting in its mailbox
   * (a PAUSE or SET_RATE the task just sent), on a zero-delay wake-up, or sooner on a WAKE the adapter
   * sends when its gate reopens (the promise API does: a zero-delay wake-up is a `setImmediate` that
   * fake timers may not run). Without it, events sent back
   * during a delivery take effect once the delivery pass is over, as with any actor.
   */
  deliveryGate?: (() => boolean) | undefined;
  /**
   * For adapters whose target can take only their own messages (the promise API's tasks): the error for
   * a message it could not take, or undefined. Such a message, sent to the actor directly, is rejected
   * (`rejected`, reason 'invalid', with that error) instead of delivered. Asked once per message taken in.
   */
  messageCheck?: ((message: AnyEventObject) => Error | undefined) | undefined;
  /**
   * Share every rate with every throttler, in any process, that uses a store of the same name:
   * `createRedisStore({ redis, name })` from `xstate-throttler/redis`. The store then decides when
   * each message may go, on its own clock (README, "Sharing a limit across processes").
   */
  store?: ThrottleStore | undefined;
}

/** Queue a message. With `id` it can later be taken back out with CANCEL. */
export interface QueueEvent<TMessage extends EventObject = AnyEventObject> {
  type: 'QUEUE';
  message: TMessage;
  /**
   * A channel named in `channels`, or with the `keys` option any other non-empty string (a key, obeying the
   * keys' template rate); without it only the overall rate applies.
   */
  channel?: string | undefined;
  /** How much of the limit this message spends (a positive integer, default 1). */
  cost?: number | undefined;
  /** Any key for CANCEL. */
  id?: unknown;
  /**
   * 0 (goes last) to 9 (goes first), default 5: p-queue's way round (Bottleneck's is the reverse).
   * Among messages the rates allow, the lowest rank goes first: arrival time less
   * `priority × maxPriorityWait / 9` (the option, default 60 s), a tie to the one that arrived first.
   */
  priority?: number | undefined;
  /**
   * The last moment it may be delivered, on the throttler's clock (its `now`); a message still
   * waiting then is dropped (`dropped`, reason `'expired'`). One or the other with `maxWait`.
   */
  deadline?: number | undefined;
  /** The longest it may wait, in ms from its arrival: a deadline of arrival + maxWait. */
  maxWait?: number | undefined;
}

/**
 * Queue several messages in one event, in order: a burst then costs one transition instead of one
 * per message. Each entry is handled as a QUEUE event with the same fields would be: checked, then
 * sent at once if nothing waits ahead of it and the rate allows it now, otherwise queued (and with
 * `capacity`, overflowing as that QUEUE would). A part the rate allows at once never enters the queue.
 */
export interface QueueBatchEvent<TMessage extends EventObject = AnyEventObject> {
  type: 'QUEUE_BATCH';
  messages: ReadonlyArray<Omit<QueueEvent<TMessage>, 'type'>>;
}

export type ThrottlerEvent<TMessage extends EventObject = AnyEventObject> =
  | QueueEvent<TMessage>
  | QueueBatchEvent<TMessage>
  | { type: 'SET_TARGET'; target: AnyActorRef | undefined }
  /** The overall rates; with `channel`, that channel's or key's; with `keyTemplate: true`, the keys' template. */
  | { type: 'SET_RATE'; rate: RatesInput; channel?: string | undefined; keyTemplate?: true | undefined }
  | { type: 'CANCEL'; id: unknown }
  | { type: 'PAUSE'; until?: number | undefined; duration?: number | undefined }
  | { type: 'RESUME' }
  | SettledEvent
  | TryAcquireEvent
  | LeaseEvent
  /** Ends the open lease: what it spent is recorded (lease.ts). */
  | { type: 'LEASE_END' }
  | { type: 'WAKE' }
  /** From a store's clearance: an answer arrived; deliver what is due (as WAKE). */
  | { type: 'CLEARANCE' }
  /** From a store's clearance: it stopped answering, or answers again. */
  | { type: 'STORE_STATUS'; up: boolean; error?: Error | undefined }
  /** From a store's clearance: it refused a call for this throttler's configuration. */
  | { type: 'STORE_STATUS'; conflict: StoreConflict }
  /** From a store's clearance: the shared state was lost; nothing is granted before `quarantinedUntil`. */
  | { type: 'STORE_STATUS'; quarantinedUntil: number }
  /** From a store's clearance: its link is slower than its grace (storeSlow). */
  | { type: 'STORE_SLOW'; roundTripMs: number; graceMs: number }
  | { type: 'WORK_WAITING' }
  | { type: 'DRAINED' };

/** A delivery has finished on the receiving side (for maxConcurrent and countUntil 'done'). */
export interface SettledEvent {
  type: 'SETTLED';
  channel?: string | undefined;
  cost?: number | undefined;
}

/**
 * Take a permit now without queueing anything, if one is free. v5 has no
 * replies, so the answer is written into `reply` while the event is processed
 * (synchronously, when sent from outside the actor): `waitMs` 0 means the
 * permit was taken; otherwise nothing was taken and it says how long until one
 * may be free. `error` is set for an invalid cost or channel. Sent to a busy
 * actor (from inside a delivery), it waits in the mailbox and is answered later:
 * a sender that no longer waits sets `cancelled`, and then nothing is taken.
 */
export interface TryAcquireEvent {
  type: 'TRY_ACQUIRE';
  channel?: string | undefined;
  cost?: number | undefined;
  reply: { waitMs?: number; error?: Error; cancelled?: boolean };
}

/**
 * Permits valid now for a sender that starts the work itself (lease.ts): the machine writes into
 * `lease.granted` how many messages of cost 1 on no channel may start at this moment, at most `want`
 * (0 while anything waits, while a listener hears `delivered`, with deliveries tracked in flight, with a
 * store, or with a strategy other than sliding-window). The sender starts up to that many synchronously,
 * counting each in `lease.spent`, then sends LEASE_END in the same synchronous stretch; any other event
 * ends the lease first. What was spent is recorded as delivered when the lease ends.
 */
export interface LeaseEvent {
  type: 'LEASE';
  want: number;
  lease: Lease;
}

/** What the throttler emits; subscribe with `actor.on(type, handler)` or `actor.on('*', handler)`. */
export type ThrottlerEmitted<TMessage extends EventObject = AnyEventObject> =
  | {
      type: 'delivered';
      message: TMessage;
      channel: string | undefined;
      cost: number;
      /** Delivery time on the throttler's time source. */
      at: number;
      queuedAt: number;
    }
  | { type: 'activated'; at: number }
  | { type: 'idled'; at: number }
  | { type: 'rejected'; message: TMessage; reason: 'overflow' | 'invalid'; error: Error }
  | { type: 'dropped'; message: TMessage; reason: DropReason; error: Error }
  | { type: 'targetLost'; target: AnyActorRef; message: TMessage; at: number }
  | { type: 'invalidEvent'; event: EventObject; error: Error }
  /**
   * The store stopped answering (a call failed or timed out; while grants are being used and nothing
   * else calls it, a check every second finds out): with onStoreDown 'pause' nothing new is granted
   * until `storeUp`. The queue stays.
   */
  | { type: 'storeDown'; error: Error; at: number }
  /** The store answers again after a `storeDown`. */
  | { type: 'storeUp'; at: number }
  /**
   * The store refused a call for this throttler's configuration: another process created the shared
   * limiter with another value of `option` (a rolling deploy with a new rate). Emitted for every call
   * refused (at most about one a second while messages wait); the queue stays and is asked for again
   * (it goes once the stored configuration has expired or matches). The promise API rejects its waiting
   * tasks with `error`; the RxJS operator errors its stream.
   */
  | { type: 'storeConflict'; error: Error; option: string; ours: unknown; stored: unknown; at: number }
  /**
   * The shared state was lost (FLUSHALL, eviction, a failover that lost writes): the store grants
   * nothing to any process before `until` (this throttler's clock); grants held were given back.
   */
  | { type: 'storeQuarantined'; until: number; at: number }
  /**
   * Once per throttler: the round trip to the store (`roundTripMs`, the fastest recent one) is too
   * long for its grace, so grants are sent up to `graceMs` (the grace + the round trip) after their
   * time on Redis' clock: strict on Redis time, not on this host's clock (README, "Late sends").
   */
  | { type: 'storeSlow'; roundTripMs: number; graceMs: number; at: number };

export interface ThrottlerContext<TMessage extends EventObject = AnyEventObject> {
  /** The queue and the policies; mutated only by the machine's own actions. */
  readonly dispatcher: Dispatcher<TMessage>;
  /** The time now: the `now` option's reading, checked and never running backwards. */
  readonly now: () => number;
  /** What `now` reads through; it keeps what went wrong with the source until the machine reports it. */
  readonly clock: MonotoneClock;
  /** How many more sends this turn may make, and the adapter's gate; scratch state, never saved. */
  readonly pacer: DeliveryPacer;
  /** The adapter's check of a message's kind (ThrottlerInput.messageCheck); never saved. */
  readonly messageCheck: ((message: AnyEventObject) => Error | undefined) | undefined;
  target: AnyActorRef | undefined;
  /** When the pending wake-up timer fires; Infinity when none is pending. */
  wakeAt: number;
  /** A copy of the counts as of this snapshot. */
  counts: ThrottlerCounts;
  /** Deliveries not yet settled (with maxConcurrent or countUntil 'done'). */
  inFlight: number;
  /** Changes with every event that changed the queue, so that snapshots compare unequal. */
  version: number;
}

/** XState's clock (what `createActor` takes as `clock`): the timer functions the one wake-up timer uses. */
export type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;
