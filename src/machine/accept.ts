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
import { isWithdrawn } from '../engine/queue/queued-message.js';
import { type Cost, costInput } from '../rate/index.js';
import { isRunning, type Send, sendNow, sendRecord, sendWhatIsDue } from './deliver.js';
import { droppedEvent, type Effects, emitDiscarded, published, refuse } from './effects.js';
import type { MachineContext, MachineEvent } from './machine-types.js';
import { ThrottlerOverflowError } from './overflow-error.js';
import { awaitsStart } from './target-start.js';
import type { QueueEvent } from './types.js';
import { listensTo } from './xstate-internals.js';

type Message = AnyEventObject;

/** A message refused as it came in: counted rejected, and said. */
function rejectInvalid(context: MachineContext, effects: Effects, message: unknown, error: unknown): void {
  context.dispatcher.counts.rejected += 1;
  effects.emit({ type: 'rejected', message: message as Message, reason: 'invalid', error: error as Error });
}

/**
 * Checks a QUEUE event's message and queues it, emitting what was rejected or
 * displaced; with `send` (the event's send record, when it may deliver and has a
 * target), a message that nothing waits ahead of and that the rate allows now
 * goes to the target at once instead, without a queue entry. Returns the clock
 * reading to go on with.
 */
export function acceptMessage(
  context: MachineContext,
  event: Omit<QueueEvent<Message>, 'type'>,
  effects: Effects,
  arrivedAt: number,
  now: number,
  send: Send | undefined,
): number {
  const { dispatcher } = context;
  let cost: Cost;
  let priority: number | undefined;
  let deadline: number | undefined;
  try {
    const invalidMessage = messageRefusal(context, event.message);
    if (invalidMessage !== undefined) throw invalidMessage;
    cost = dispatcher.clearance.checkMessage(event.channel, event.cost);
    priority = checkPriority(event.priority);
    deadline = checkDeadline(event, arrivedAt);
  } catch (error) {
    rejectInvalid(context, effects, event.message, error);
    return now;
  }
  // Taken back by its sender while this event waited or ran (a task aborted by one this batch started): its CANCEL finds nothing.
  if (isWithdrawn(event.message)) {
    dispatcher.counts.dropped += 1;
    effects.emit(droppedEvent(event.message, 'cancelled'));
    return now;
  }
  // Waiting messages past their deadline are dropped first (idle without a target, nothing else looks at the
  // queue), then this message if it is past its own already (e.g. its batch took longer than its maxWait).
  if (dispatcher.expire(now)) emitDiscarded(context, effects);
  if (deadline !== undefined && deadline < now) {
    dispatcher.counts.dropped += 1;
    effects.emit(droppedEvent(event.message, 'expired', deadline));
    return now;
  }
  if (send !== undefined && dispatcher.isEmpty && dispatcher.clearance.allowsNow(event.channel, cost, now)) {
    const pacer = context.pacer;
    // The pacer (and the adapter's gate behind it) is asked last, only for a message that would otherwise go
    // now: a no queues this message, and holds the rest of the event, for a later turn.
    if (isRunning(send.target) && pacer.maySend()) {
      pacer.sent();
      send.message = event.message;
      send.channel = event.channel;
      send.cost = cost;
      send.queuedAt = arrivedAt;
      send.seq = -1;
      send.scope = undefined;
      send.id = event.id;
      return sendNow(send, now);
    }
  }
  let queued: ReturnType<typeof dispatcher.enqueue>;
  try {
    queued = dispatcher.enqueue(event.message, event.channel, cost, event.id, arrivedAt, priority, deadline);
  } catch (error) {
    // Weighted fairness: the key's weight function threw or answered no positive finite number.
    rejectInvalid(context, effects, event.message, error);
    return now;
  }
  if ((queued === 'queued' || queued === 'head') && context.pacer.queueingHeard()) {
    const shown = typeof cost === 'number' ? cost : costInput(cost, dispatcher.options.dimensions);
    effects.emit({ type: 'queued', message: event.message, channel: event.channel, cost: shown, at: arrivedAt });
  }
  // Queued behind others yet first in its queue (a higher priority, or its channel's only message), it may be
  // due at once: it goes now, before the next message of a batch, as it would have after a QUEUE of its own.
  if (queued === 'head' && send !== undefined) now = sendWhatIsDue(context, effects, send.self, now, false, send).now;
  else if (queued !== 'queued' && queued !== 'head') {
    const why =
      queued === 'rejected'
        ? 'the queue is full (overflow: "reject")'
        : 'the queue is full of messages of higher priority (it would be the first to be dropped)';
    const policy = queued === 'rejected' ? 'reject' : dispatcher.options.overflow;
    effects.emit({
      type: 'rejected',
      message: event.message,
      reason: 'overflow',
      error: new ThrottlerOverflowError(policy, `Message rejected: ${why}`),
    });
  }
  emitDiscarded(context, effects);
  return now;
}

/** Why a message cannot be taken in: not an event object, or not of the adapter's kind (`messageCheck`). */
export function messageRefusal(context: MachineContext, message: unknown): Error | undefined {
  return messageError(message) ?? context.messageCheck?.(message as Message);
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
  const { pacer, target } = context;
  const send =
    deliverNow && target !== undefined && !awaitsStart(target)
      ? sendRecord(context, effects, self, target, listensTo(self, 'delivered'))
      : undefined;
  if (event.type === 'QUEUE') {
    pacer.beginPass(1);
    const now = acceptMessage(context, event, effects, arrivedAt, arrivedAt, send);
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
    now = acceptMessage(context, entry, effects, arrivedAt, now, send);
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
  return context.dispatcher.isEmpty && mayGoAtOnce(context, event, now);
}

/**
 * `passesStraightThrough` but for the queue being empty: a target, a valid message, the policies allow it
 * now, and no activation is needed first. In `active`, quiet.ts asks the rest of the queue itself.
 */
export function mayGoAtOnce(context: MachineContext, event: QueueEvent<Message>, now: number): boolean {
  const { dispatcher, target } = context;
  const { clearance } = dispatcher;
  if (target === undefined || clearance.activationStarts(event.channel, now)) return false;
  if (messageRefusal(context, event.message) !== undefined || isWithdrawn(event.message) || !mayGoAsIs(event, now))
    return false;
  // A stopped target takes the long way, where the message is kept and the target let go of.
  // A cost that is not a number (per dimension, or invalid) takes the long way, where it is resolved or refused.
  if (typeof event.cost === 'object' && event.cost !== null) return false;
  return clearance.allowsNow(event.channel, event.cost ?? 1, now) && isRunning(target) && !awaitsStart(target);
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
  const arrivedAt = context.now();
  sendNow(
    straightThrough(sendRecord(context, effects, self, target, listensTo(self, 'delivered')), event, arrivedAt),
    arrivedAt,
  );
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

/** A send record holding a message that passes straight through (its cost checked by `passesStraightThrough`). */
export function straightThrough(send: Send, event: QueueEvent<Message>, arrivedAt: number): Send {
  send.message = event.message;
  send.channel = event.channel;
  // passesStraightThrough let only a number through (allowsNow is false for a cost per dimension).
  send.cost = (event.cost as number | undefined) ?? 1;
  send.queuedAt = arrivedAt;
  send.id = event.id;
  return send;
}
