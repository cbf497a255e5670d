/**
 * Taking messages in: checking each, sending it at once when nothing waits
 * ahead and the rate allows it (the idle fast path, and every entry of a
 * batch), queueing it otherwise, and reporting what was refused or displaced.
 */
import type { AnyActorRef, AnyEventObject } from 'xstate';
import {
  batchEntryError,
  batchError,
  checkDeadline,
  checkPriority,
  messageError,
} from '../engine/queue/message-checks.js';
import { isRunning, sendNow, sendWhatIsDue } from './deliver.js';
import { droppedEvent, type Effects, emitDiscarded, published, refuse } from './effects.js';
import type { MachineContext, MachineEvent } from './machine-types.js';
import type { QueueEvent } from './types.js';
import { listensTo } from './xstate-internals.js';

type Message = AnyEventObject;

/**
 * Checks a QUEUE event's message and queues it, emitting what was rejected or
 * displaced; with `deliverNow`, a message that nothing waits ahead of and that
 * the rate allows now goes to the target at once instead, without a queue
 * entry. Returns the clock reading to go on with.
 */
export function acceptMessage(
  context: MachineContext,
  event: Omit<QueueEvent<Message>, 'type'>,
  effects: Effects,
  self: AnyActorRef,
  arrivedAt: number,
  now: number,
  deliverNow: boolean,
): number {
  const { dispatcher } = context;
  let cost: number;
  let priority: number | undefined;
  let deadline: number | undefined;
  try {
    const invalidMessage = messageError(event.message);
    if (invalidMessage !== undefined) throw invalidMessage;
    cost = dispatcher.clearance.checkMessage(event.channel, event.cost);
    priority = checkPriority(event.priority);
    deadline = checkDeadline(event, arrivedAt);
  } catch (error) {
    dispatcher.counts.rejected += 1;
    effects.emit({ type: 'rejected', message: event.message, reason: 'invalid', error: error as Error });
    return now;
  }
  // Messages whose deadline has passed leave first (one that waited for nothing else to look at the queue, idle
  // without a target, goes now), then one past its deadline already (e.g. a batch took longer than its maxWait).
  if (dispatcher.expire(now)) emitDiscarded(context, effects);
  if (deadline !== undefined && deadline < now) {
    dispatcher.counts.dropped += 1;
    effects.emit(droppedEvent(event.message, 'expired', deadline));
    return now;
  }
  if (deliverNow && dispatcher.isEmpty && dispatcher.clearance.allowsNow(event.channel, cost, now)) {
    const { target } = context;
    const pacer = context.pacer;
    // Asked last, only for a message that would go: a no holds it and the rest for a later turn.
    if (target !== undefined && isRunning(target) && pacer.maySend()) {
      const emitDelivery = listensTo(self, 'delivered');
      pacer.sent();
      return sendNow(context, effects, self, target, event.message, event.channel, cost, arrivedAt, now, emitDelivery);
    }
  }
  const queued = dispatcher.enqueue(event.message, event.channel, cost, event.id, arrivedAt, priority, deadline);
  // Queued behind others yet first in its queue (a higher priority, or its channel's only message), it may be
  // due at once: it goes now, before the next message of a batch, as it would have after a QUEUE of its own.
  if (queued === 'head' && deliverNow) now = sendWhatIsDue(context, effects, self, now, false).now;
  else if (queued !== 'queued' && queued !== 'head') {
    const why =
      queued === 'rejected'
        ? 'the queue is full (overflow: "reject")'
        : 'the queue is full of messages of higher priority (it would be the first to be dropped)';
    effects.emit({
      type: 'rejected',
      message: event.message,
      reason: 'overflow',
      error: new Error(`Message rejected: ${why}`),
    });
  }
  emitDiscarded(context, effects);
  return now;
}

/**
 * Takes in what a QUEUE or QUEUE_BATCH event carries, in order, each message as
 * `acceptMessage` does: a burst the rate allows at once never enters the queue.
 * Every message of the event arrived at `arrivedAt`; `now` moves on as
 * deliveries are made. Returns the clock reading to go on with.
 */
export function acceptQueued(
  context: MachineContext,
  event: MachineEvent,
  effects: Effects,
  self: AnyActorRef,
  arrivedAt: number,
  deliverNow: boolean,
): number {
  const { pacer } = context;
  if (event.type === 'QUEUE') {
    pacer.beginPass(1);
    const now = acceptMessage(context, event, effects, self, arrivedAt, arrivedAt, deliverNow);
    pacer.broughtPlaced();
    return now;
  }
  if (event.type !== 'QUEUE_BATCH') return arrivedAt;
  const invalidBatch = batchError(event.messages);
  if (invalidBatch !== undefined) {
    pacer.beginPass(0);
    refuse(effects, event, invalidBatch);
    return arrivedAt;
  }
  // The batch's own messages that may go at once go now, as a QUEUE each would have: the slice bounds
  // what the throttler releases by itself (a wake-up, RESUME, a new rate), not what a sender hands over.
  pacer.beginPass(event.messages.length);
  let now = arrivedAt;
  for (let index = 0; index < event.messages.length; index++) {
    const entry = event.messages[index] as Omit<QueueEvent<Message>, 'type'>;
    const invalidEntry = batchEntryError(entry, index);
    if (invalidEntry !== undefined) {
      context.dispatcher.counts.rejected += 1;
      effects.emit({ type: 'rejected', message: entry as never, reason: 'invalid', error: invalidEntry });
      continue;
    }
    now = acceptMessage(context, entry, effects, self, arrivedAt, now, deliverNow);
  }
  pacer.broughtPlaced();
  return now;
}

/**
 * Whether an idle throttler may pass this message straight through and stay
 * idle: a target, nothing waiting, a valid message, the policies allow it now,
 * and no activation is needed first (a timer period that would start on it).
 */
export function passesStraightThrough(context: MachineContext, event: QueueEvent<Message>, now: number): boolean {
  const { dispatcher, target } = context;
  const { clearance } = dispatcher;
  if (target === undefined || !dispatcher.isEmpty || clearance.activationStarts(event.channel, now)) return false;
  if (messageError(event.message) !== undefined || !mayGoAsIs(event, now)) return false;
  // A stopped target takes the long way, where the message is kept and the target let go of.
  return clearance.allowsNow(event.channel, event.cost ?? 1, now) && isRunning(target);
}

/**
 * The idle fast path, once `passesStraightThrough` said yes: the message goes to
 * the target at once, without a queue entry. The most common event there is, so
 * it does only what a delivery must: send, record, tell listeners, publish.
 */
export function passThrough(
  context: MachineContext,
  event: QueueEvent<Message>,
  effects: Effects,
  self: AnyActorRef,
): void {
  const target = context.target as AnyActorRef;
  const emitDelivery = listensTo(self, 'delivered');
  const { message, channel, cost = 1 } = event;
  const arrivedAt = context.now();
  sendNow(context, effects, self, target, message, channel, cost, arrivedAt, arrivedAt, emitDelivery);
  effects.assign(published(context, target, context.wakeAt));
}

/**
 * Whether a message's priority and deadline let it take the fast path: valid (an invalid one takes
 * the long way, where it is rejected), and not past its deadline (it is dropped there). Nothing is
 * checked for the common message that has neither.
 */
function mayGoAsIs(event: QueueEvent<Message>, now: number): boolean {
  if (event.priority === undefined && event.deadline === undefined && event.maxWait === undefined) return true;
  try {
    checkPriority(event.priority);
    const deadline = checkDeadline(event, now);
    return deadline === undefined || deadline >= now;
  } catch {
    return false;
  }
}
