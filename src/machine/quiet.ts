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
 * - in `active`, a message of the default priority (on a channel only in FIFO
 *   order) that joins the queue behind a waiting head before the armed wake-up,
 *   with no deadline before it (nothing is due, nothing displaced or expired, no
 *   slice held, no wake-up to re-arm): it is queued and the counts are published; the delivery pass would only have found that the
 *   head still waits for the timer already armed;
 * - in `active`, a message that nothing waits ahead of on its own channel (per-channel ordering) and that
 *   the rate allows now, before the armed wake-up (so no waiting head is due): it is sent and recorded, as
 *   the ordinary path would once it had filed it as its channel's head and chosen it at once, and the
 *   wake-up stays armed (a delivery never makes another message's time sooner; an early wake-up asks again).
 */
import type { AnyActorRef, AnyEventObject } from 'xstate';
import { checkDeadline } from '../engine/queue/message-checks.js';
import { isWithdrawn } from '../engine/queue/queued-message.js';
import { mayGoAtOnce, messageRefusal, passesStraightThrough, straightThrough } from './accept.js';
import { sendNow, sendRecord } from './deliver.js';
import { type Effects, publishedUpdate } from './effects.js';
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

/**
 * Nobody hears deliveries, the clock read cleanly, and the strategy is the library's: nothing of the event needs
 * to be emitted. A strategy of one's own may break its contract while the message is recorded, which only the
 * ordinary path can report (`strategyError`), so its messages never go quietly.
 */
function nothingToTell(context: MachineContext): boolean {
  return !context.pacer.deliveriesHeard() && !context.clock.hasFault && context.strategyFaults === undefined;
}

/** In `idle`: the message passes straight through and nothing needs to be emitted. */
export function passesQuietly(context: MachineContext, event: MachineEvent): boolean {
  if (event.type !== 'QUEUE' || context.dispatcher.lease.isOpen) return false;
  return passesStraightThrough(context, event, context.now()) && nothingToTell(context);
}

/** `passThrough` without effects: sent, recorded, published. */
export function passQuietly(context: MachineContext, event: MachineEvent, self: AnyActorRef) {
  const target = context.target as AnyActorRef;
  // Its guard (passesQuietly, passesAheadQuietly) read the clock just now, cleanly: it arrived then.
  const arrivedAt = context.clock.latest;
  const send = sendRecord(context, NO_EFFECTS, self, target, false);
  sendNow(straightThrough(send, event as QueueEvent<AnyEventObject>, arrivedAt), arrivedAt);
  return publishedUpdate(context, target, context.wakeAt);
}

/**
 * In `active`: the message goes at once ahead of heads that wait for the armed wake-up, and nothing needs
 * to be emitted (not `queued` nor `dequeued` either, which the ordinary path's queue entry would emit).
 */
export function passesAheadQuietly(context: MachineContext, event: MachineEvent): boolean {
  if (event.type !== 'QUEUE' || context.pacer.isHolding || !context.pacer.ungated) return false;
  // A retry that keeps its place (the promise API's) is placed by the ordinary path.
  if ((event.message as { place?: unknown } | null | undefined)?.place !== undefined) return false;
  const now = context.now();
  if (!(now < context.wakeAt) || !context.dispatcher.wouldGoAheadOf(event.channel, now)) return false;
  if (!nothingToTell(context) || context.pacer.queueingHeard() || context.pacer.dequeueingHeard()) return false;
  return mayGoAtOnce(context, event, now);
}

/** `passesAheadQuietly`'s message sent; counted as queued in all, as its momentary queue entry was. */
export function passAheadQuietly(context: MachineContext, event: MachineEvent, self: AnyActorRef) {
  context.dispatcher.queuedTotal += 1;
  return passQuietly(context, event, self);
}

/**
 * In `active`: a message of the default priority joins the queue behind its head before the wake-up (on a
 * channel only in FIFO order), its deadline (if any) no sooner than that wake-up, and nothing else happens.
 */
export function queuesQuietly(context: MachineContext, event: MachineEvent): boolean {
  if (event.type !== 'QUEUE' || event.priority !== undefined) return false;
  // A retry that keeps its place (the promise API's) may go before the head: the ordinary path looks again.
  if ((event.message as { place?: unknown } | null | undefined)?.place !== undefined) return false;
  if (context.pacer.isHolding || messageRefusal(context, event.message) !== undefined) return false;
  if (isWithdrawn(event.message)) return false;
  const now = context.now();
  const { dispatcher } = context;
  if (!(now < context.wakeAt) || !dispatcher.wouldWaitBehind(event.channel, now) || !nothingToTell(context))
    return false;
  if (context.pacer.queueingHeard()) return false;
  try {
    dispatcher.clearance.checkMessage(event.channel, event.cost);
    // A deadline before the armed wake-up would need the timer re-armed for it: the ordinary path does that.
    const deadline = checkDeadline(event, now);
    return deadline === undefined || deadline >= context.wakeAt;
  } catch {
    return false;
  }
}

/** The QUEUE of `queuesQuietly`: queued, published; the wake-up stays as it is. */
export function queueQuietly(context: MachineContext, event: MachineEvent) {
  const { message, channel, cost, id } = event as QueueEvent<AnyEventObject>;
  const { dispatcher } = context;
  const checkedCost = dispatcher.clearance.checkMessage(channel, cost);
  // queuesQuietly read the clock just now, cleanly: it arrived then.
  const arrivedAt = context.clock.latest;
  const deadline = checkDeadline(event as QueueEvent<AnyEventObject>, arrivedAt);
  dispatcher.enqueue(message, channel, checkedCost, id, arrivedAt, undefined, deadline);
  return publishedUpdate(context, context.target, context.wakeAt);
}
