/**
 * The two paths a QUEUE takes when it has nothing to say but its new
 * snapshot: a plain `assign`, not the `enqueueActions` every other action
 * runs through (withEffects). XState builds an enqueuer with nine closures and
 * resolves its actions one by one for each `enqueueActions`, which cost more
 * than the rest of the event together (a bare machine: 2.5 s for 1,000,000
 * events with an `assign`, 6.2 s with the same `assign` inside
 * `enqueueActions`: bench/README.md, W1 and W2).
 *
 * A guard decides, before anything changes, that the event can emit, raise,
 * cancel and report nothing: the message is valid, nobody hears deliveries,
 * the clock read cleanly (and, for a message that queues, nobody hears `queued`). What the event does is then the same as on the
 * ordinary path, minus effects it could not have had:
 *
 * - in `idle`, a message that passes straight through (accept.ts): it is
 *   sent and recorded, and the counts are published;
 * - in `active`, a message on no channel, with no priority or deadline, that
 *   joins the queue behind a waiting head before the armed wake-up (nothing
 *   is due, nothing displaced or expired, no slice held): it is queued and the
 *   counts are published; the delivery pass would only have found that the
 *   head still waits for the timer already armed.
 */
import type { AnyActorRef, AnyEventObject } from 'xstate';
import { messageRefusal, passesStraightThrough, straightThrough } from './accept.js';
import { sendNow, sendRecord } from './deliver.js';
import { type Effects, published } from './effects.js';
import type { MachineContext, MachineEvent } from './machine-types.js';
import type { QueueEvent } from './types.js';

/** Effects for a path that has none: using one is a bug in the guard that chose it. */
const NO_EFFECTS: Effects = {
  emit: noEffect,
  cancel: noEffect,
  raise: noEffect,
  assign: noEffect,
};

function noEffect(): never {
  throw new Error('xstate-throttler: a quiet path tried to have an effect (its guard let the wrong event in)');
}

/** Nobody hears deliveries and the clock read cleanly: nothing of the event needs to be emitted. */
function nothingToTell(context: MachineContext): boolean {
  return !context.pacer.deliveriesHeard() && !context.clock.hasFault;
}

/** In `idle`: the message passes straight through and nothing needs to be emitted. */
export function passesQuietly(context: MachineContext, event: MachineEvent): boolean {
  if (event.type !== 'QUEUE' || context.dispatcher.lease.isOpen) return false;
  return passesStraightThrough(context, event, context.now()) && nothingToTell(context);
}

/** `passThrough` without effects: sent, recorded, published. */
export function passQuietly(context: MachineContext, event: MachineEvent, self: AnyActorRef) {
  const target = context.target as AnyActorRef;
  const arrivedAt = context.now();
  const send = sendRecord(context, NO_EFFECTS, self, target, false);
  sendNow(straightThrough(send, event as QueueEvent<AnyEventObject>, arrivedAt), arrivedAt);
  return published(context, target, context.wakeAt)();
}

/** In `active`: a plain message joins the queue behind its head before the wake-up, and nothing else happens. */
export function queuesQuietly(context: MachineContext, event: MachineEvent): boolean {
  if (event.type !== 'QUEUE') return false;
  const { channel, priority, deadline, maxWait, cost } = event;
  if (channel !== undefined || priority !== undefined || deadline !== undefined || maxWait !== undefined) return false;
  // A retry that keeps its place (the promise API's) may go before the head: the ordinary path looks again.
  if ((event.message as { place?: unknown } | null | undefined)?.place !== undefined) return false;
  if (context.pacer.isHolding || messageRefusal(context, event.message) !== undefined) return false;
  const now = context.now();
  const { dispatcher } = context;
  if (!(now < context.wakeAt) || !dispatcher.wouldWaitBehind(now) || !nothingToTell(context)) return false;
  if (context.pacer.queueingHeard()) return false;
  try {
    dispatcher.clearance.checkMessage(undefined, cost);
  } catch {
    return false;
  }
  return true;
}

/** The QUEUE of `queuesQuietly`: queued, published; the wake-up stays as it is. */
export function queueQuietly(context: MachineContext, event: MachineEvent) {
  const { message, cost, id } = event as QueueEvent<AnyEventObject>;
  const { dispatcher } = context;
  const checkedCost = dispatcher.clearance.checkMessage(undefined, cost);
  dispatcher.enqueue(message, undefined, checkedCost, id, context.now());
  return published(context, context.target, context.wakeAt)();
}
