import type { ActorOptions, AnyActorLogic, AnyActorRef, AnyEventObject, EventObject } from 'xstate';
import type { ThrottleStore } from '../engine/clearance/clearance.js';
import type { CommonOptions } from '../engine/options/options.js';
import type { DropReason, ThrottlerCounts } from '../engine/queue/message-queues.js';
import type { DurationInput, RatesInput } from '../rate/index.js';

/** The machine's input: the options every face takes, and optionally the first target and a store. */
export interface ThrottlerInput extends CommonOptions {
  /** Where messages go. Can be set (and changed, or unset) later with SET_TARGET. */
  target?: AnyActorRef | undefined;
  /**
   * Share every rate with every throttler, in any process, that uses a store of the same name:
   * `createRedisStore({ redis, name })` from `xstate-throttler/redis`. The store then decides when
   * each message may go, on its own clock (docs/redis.md).
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
  /**
   * How much of the limit this message spends (a positive integer, default 1; with rates in dimensions, that
   * cost in every dimension), or per dimension: `{ requests: 1, tokens: 1200 }` (a dimension it does not name costs 0).
   */
  cost?: number | { readonly [dimension: string]: number } | undefined;
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
  /** The longest it may wait from its arrival (`'2s'` or ms): a deadline of arrival + maxWait. */
  maxWait?: DurationInput | undefined;
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

/**
 * The events a user sends (docs/reference.md, "Events you send"). The machine's own events (its
 * wake-up, its switch between states, a store's answers, the promise API's lease) are not among them:
 * sent from outside they are refused as unknown types (`invalidEvent`).
 */
export type ThrottlerEvent<TMessage extends EventObject = AnyEventObject> =
  | QueueEvent<TMessage>
  | QueueBatchEvent<TMessage>
  | { type: 'SET_TARGET'; target: AnyActorRef | undefined }
  /** The overall rates; with `channel`, that channel's or key's; with `keyTemplate: true`, the keys' template. */
  | { type: 'SET_RATE'; rate: RatesInput; channel?: string | undefined; keyTemplate?: true | undefined }
  | { type: 'CANCEL'; id: unknown }
  | { type: 'PAUSE'; until?: number | undefined; duration?: DurationInput | undefined }
  | { type: 'RESUME' }
  | SettledEvent
  | ActualCostEvent
  | TryAcquireEvent;

/**
 * What a delivered message really cost, known once it was done (an LLM call's tokens): `id` is the id it was
 * QUEUEd with (the one CANCEL takes), `cost` the actual cost, an integer >= 0, or with rates in dimensions
 * a map of dimension to actual cost (a dimension it does not name keeps its estimate). It replaces the estimate the
 * message was sent with, at the time it was sent: less frees the difference at once, more is charged there
 * (later messages wait until every window holding it has room). Refused (invalidEvent) when no delivered
 * message under that id awaits its actual cost: never sent with one, settled already, or delivered longer
 * ago than the longest interval (no window holds it any more).
 */
export interface ActualCostEvent {
  type: 'ACTUAL_COST';
  id: unknown;
  cost: number | { readonly [dimension: string]: number };
}

/** A delivery has finished on the receiving side (for maxConcurrent and countUntil 'done'). */
export interface SettledEvent {
  type: 'SETTLED';
  channel?: string | undefined;
  /** The delivery's cost, as it was queued (a number, or the same map of dimension to cost). */
  cost?: number | { readonly [dimension: string]: number } | undefined;
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
  /** As a QUEUE's: a number, or a map of dimension to cost. */
  cost?: number | { readonly [dimension: string]: number } | undefined;
  reply: { waitMs?: number | undefined; error?: Error | undefined; cancelled?: boolean | undefined };
}

/** What the throttler emits; subscribe with `actor.on(type, handler)` or `actor.on('*', handler)`. */
export type ThrottlerEmitted<TMessage extends EventObject = AnyEventObject> =
  | {
      type: 'delivered';
      message: TMessage;
      channel: string | undefined;
      /** As queued: a number, or (a cost per dimension) the dimensions it costs something in. */
      cost: number | { readonly [dimension: string]: number };
      /** Delivery time on the throttler's time source. */
      at: number;
      queuedAt: number;
    }
  /**
   * A message joined the queue: it was valid but could not go at once (something waits ahead, or the rate,
   * a pause or the in-flight cap holds it). Emitted only while someone listens (`actor.on('queued')`);
   * a message that goes straight through, or is refused, never emits it. It later ends as `dequeued` (and
   * `delivered`) or `dropped`.
   */
  | {
      type: 'queued';
      message: TMessage;
      channel: string | undefined;
      cost: number | { readonly [dimension: string]: number };
      at: number;
    }
  /**
   * A message that waited in the queue went to its target, right after its `delivered`: it waited
   * `at - queuedAt` ms on the throttler's clock. Emitted only while someone listens; unlike `delivered`,
   * listening to it does not stop the promise API from starting tasks inside `schedule` (those never queue).
   */
  | {
      type: 'dequeued';
      message: TMessage;
      channel: string | undefined;
      cost: number | { readonly [dimension: string]: number };
      queuedAt: number;
      at: number;
    }
  | { type: 'activated'; at: number }
  | { type: 'idled'; at: number }
  | { type: 'rejected'; message: TMessage; reason: 'overflow' | 'invalid'; error: Error }
  | { type: 'dropped'; message: TMessage; reason: DropReason; error: Error }
  | { type: 'targetLost'; target: AnyActorRef; message: TMessage; at: number }
  /**
   * The target was set before it was started: nothing is sent to it until it starts (XState would keep
   * it all in its mailbox and hand it over at once), then what the rate allows goes. Once per target;
   * `waiting`: the messages waiting then.
   */
  | { type: 'targetNotStarted'; target: AnyActorRef; waiting: number; at: number }
  | { type: 'invalidEvent'; event: EventObject; error: Error }
  /**
   * A strategy of your own (defineStrategy) broke the policy contract: `earliestDelivery` answered something
   * other than a time >= now, or a method threw (`error`, a ThrottlerOptionError naming the call, with the
   * throw as its `cause`). Nothing went on that answer (it counts as "not until an event") and the queue
   * stays; emitted after the event being handled, once per event. The promise API rejects its waiting tasks
   * with `error`; the RxJS operator errors its stream.
   */
  | { type: 'strategyError'; error: Error; at: number }
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
   * time on Redis' clock: strict on Redis time, not on this host's clock (docs/redis.md, "Late sends").
   */
  | { type: 'storeSlow'; roundTripMs: number; graceMs: number; at: number }
  /**
   * Grants this throttler held were given back (`given`: their messages asked for again, in order)
   * or moved in Redis to its now (`retimed`, sliding window), once per give-back: `reason` is `late`
   * (not sent within the grace of their time: a slow reply, a busy process), `pause`, `quarantine`,
   * `rates`, `priority` (a message of higher priority had no grant of its kind) or `outage` (the local
   * window still held the message back after an outage). Frequent `late` ones cost throughput
   * (docs/redis-operations.md).
   */
  | {
      type: 'storeGrantsRewound';
      given: number;
      retimed: number;
      reason: 'late' | 'pause' | 'quarantine' | 'rates' | 'priority' | 'outage';
      at: number;
    };

/** What a snapshot's `context` tells: `actor.getSnapshot().context`. */
export interface ThrottlerContext {
  /** The actor messages go to; undefined until SET_TARGET, and again after `targetLost`. */
  target: AnyActorRef | undefined;
  /** When the pending wake-up timer fires, on the throttler's clock; Infinity when none is pending. */
  wakeAt: number;
  /** Messages waiting now, and delivered, dropped and rejected so far. */
  counts: ThrottlerCounts;
  /** Deliveries not yet settled (with maxConcurrent or countUntil 'done'). */
  inFlight: number;
  /** Changes with every event that changed the queue, so that snapshots compare unequal. */
  version: number;
}

/** XState's clock (what `createActor` takes as `clock`): the timer functions the one wake-up timer uses. */
export type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;
