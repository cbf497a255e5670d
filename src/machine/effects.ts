/**
 * What the machine's actions may do, and the context every change publishes:
 * the typed enqueuer (`withEffects`, the one cast), refusing an event,
 * the `dropped` events for what left the queue, and the fresh counts and
 * version each change assigns.
 */
import { type AnyActorRef, type AnyEventObject, type EventObject, enqueueActions } from 'xstate';
import type { DropReason } from '../engine/queue/message-queues.js';
import { ThrottlerExpiredError } from './expired-error.js';
import type { MachineContext, MachineEvent } from './machine-types.js';
import { ThrottlerOverflowError } from './overflow-error.js';
import { DRAINED_EVENT, type WAKE_EVENT, WORK_WAITING_EVENT } from './own-events.js';
import type { ThrottlerEmitted } from './types.js';

/** The id of the single wake-up timer, so it can be cancelled before it is armed again. */
export const WAKE_UP_ID = 'throttler.wakeUp';

/**
 * setTimeout fires at once for delays of 2^31 ms or more (XState passes delays
 * through unchecked), so longer waits are armed in chunks; every wake re-checks.
 */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

const DROP_EXPLANATIONS: Record<DropReason, string> = {
  'drop-oldest': 'the queue was full (overflow: "drop-oldest") and a newer message took its place',
  'drop-newest': 'the queue was full (overflow: "drop-newest") and a newer message took its place',
  cancelled: 'it was cancelled before it was delivered',
  'cost-exceeds-limit': 'its cost is larger than the limit now in force, so it could never be delivered',
  expired: 'its deadline (deadline or maxWait) passed before the rate let it go',
};

/** The `dropped` event for a message that leaves (or never enters) the queue undelivered. */
export function droppedEvent(message: AnyEventObject, reason: DropReason, deadline?: number): ThrottlerEmitted {
  const explained = `Message dropped: ${DROP_EXPLANATIONS[reason]}`;
  const error =
    reason === 'expired'
      ? new ThrottlerExpiredError(deadline)
      : reason === 'drop-oldest' || reason === 'drop-newest'
        ? new ThrottlerOverflowError(reason, explained)
        : new Error(explained);
  return { type: 'dropped', message, reason, error };
}

/**
 * Emits a `dropped` event for each message that left the queue undelivered since the last look.
 * Asked after every message taken in: nothing is allocated when nothing left (the common case).
 */
export function emitDiscarded(context: MachineContext, effects: Effects): void {
  const { discarded } = context.dispatcher;
  if (discarded.length === 0) return;
  // emit only enqueues the event (XState sends it after the action), so nothing can add to the list while it is
  // walked: it is emptied once, after the loop, rather than copied first.
  for (const { entry, reason } of discarded) effects.emit(droppedEvent(entry.message, reason, entry.deadline));
  discarded.length = 0;
}

/** What every change assigns: fresh counts and a new version, so the snapshot differs from the last. */
export function published(
  context: MachineContext,
  target: MachineContext['target'],
  wakeAt: number,
): () => Partial<MachineContext> {
  const update = publishedUpdate(context, target, wakeAt);
  return () => update;
}

/** `published`'s update itself, for a plain `assign` (the quiet paths) to return with no assigner to build. */
export function publishedUpdate(
  context: MachineContext,
  target: MachineContext['target'],
  wakeAt: number,
): Partial<MachineContext> {
  const { queued, delivered, dropped, rejected } = context.dispatcher.counts;
  // On the quiet paths this runs for every message, and one object of one fixed shape is the cheapest
  // update XState can take.
  return {
    target,
    wakeAt,
    counts: { queued, delivered, dropped, rejected },
    inFlight: context.dispatcher.inFlightCount,
    version: context.version + 1,
  };
}

/** The part of enqueueActions' enqueuer this machine uses, typed for its own events. */
export interface Effects {
  emit(event: ThrottlerEmitted): void;
  cancel(id: string): void;
  raise(event: typeof WAKE_EVENT, options: { id: string; delay: number }): void;
  raise(event: typeof DRAINED_EVENT | typeof WORK_WAITING_EVENT): void;
  assign(changes: () => Partial<MachineContext>): void;
}

/**
 * The one way the machine's actions get their effects, typed for its own
 * events (XState's enqueuer is typed for every action at once). After the
 * action, anything that went wrong reading the clock is reported against the
 * event that was being handled: a bad `now()` is seen, and time stood still.
 */
export function withEffects(
  body: (context: MachineContext, event: MachineEvent, effects: Effects, self: AnyActorRef) => void,
  /** The action follows another of its transition (noticeWork): the same event, whose breach is reported once. */
  continues = false,
) {
  return enqueueActions<
    MachineContext,
    MachineEvent,
    undefined,
    MachineEvent,
    never,
    never,
    never,
    never,
    ThrottlerEmitted
  >(({ context, event, enqueue, self }) => {
    // The one cast: XState types the enqueuer for every action and delay of a machine at once.
    const effects = enqueue as unknown as Effects;
    // A LEASE still open ends before anything else is decided (lease.ts): nothing else may be recorded meanwhile.
    if (context.dispatcher.lease.isOpen) {
      context.dispatcher.lease.end(context.now());
      effects.assign(published(context, context.target, context.wakeAt));
    }
    body(context, event, effects, self);
    const fault = context.clock.takeFault();
    if (fault !== undefined) effects.emit({ type: 'invalidEvent', event, error: fault });
    // A strategy of one's own that broke its contract (own-policy.ts): nothing went on its word, and it is told,
    // once for the event however many of its actions (and the events it raised) asked.
    const breach = context.strategyFaults?.take(continues || event === WORK_WAITING_EVENT || event === DRAINED_EVENT);
    if (breach !== undefined) effects.emit({ type: 'strategyError', error: breach, at: context.now() });
  });
}

/** Refuses an event the machine cannot act on: it is reported, and nothing changes. */
export function refuse(effects: Effects, event: MachineEvent | EventObject, error: Error): void {
  effects.emit({ type: 'invalidEvent', event, error });
}
