/**
 * Delivering: the one send (`sendNow`), the loop that sends what is due and
 * arms the one wake-up timer (`deliverDue`), and what `idle` does when work
 * arrives (`noticeWork`).
 */
import type { AnyActorRef, AnyEventObject } from 'xstate';
import type { QueuedMessage } from '../engine/queue/queued-message.js';
import { GRANT_TOLERANCE_MS } from '../policies/smooth-rate.js';
import { type Cost, costInput } from '../rate/index.js';
import { type Effects, emitDiscarded, MAX_TIMER_DELAY, published, WAKE_UP_ID } from './effects.js';
import type { MachineContext } from './machine-types.js';
import { DRAINED_EVENT, WAKE_EVENT, WORK_WAITING_EVENT } from './own-events.js';
import { awaitsStart, holdForStart } from './target-start.js';
import { listensTo, relay, wasStopped } from './xstate-internals.js';

type Message = AnyEventObject;

/**
 * Whether a message waits. Only that keeps the throttler active: a timer period
 * that merely runs out with nothing queued needs no timer (the timer policy
 * works out its ticks from the time it is asked), so nothing holds the process
 * open while nothing waits.
 */
export function hasWork(context: MachineContext): boolean {
  return !context.dispatcher.isEmpty;
}

/**
 * Whether a target can still receive: XState drops events sent to a stopped
 * actor without a word. A ref whose snapshot cannot be read counts as stopped,
 * so the message stays queued and `targetLost` says so.
 */
export function isRunning(target: AnyActorRef): boolean {
  try {
    return target.getSnapshot()?.status === 'active' && !wasStopped(target);
  } catch {
    return false;
  }
}

/**
 * One send: who sends, to whom, and whether listeners hear of it (the same for a whole pass or
 * event), and the message going now, set before each send: one record a pass, none a message.
 */
export interface Send {
  readonly context: MachineContext;
  readonly effects: Effects;
  readonly self: AnyActorRef;
  readonly target: AnyActorRef;
  readonly emitDelivery: boolean;
  message: Message;
  channel: string | undefined;
  /** Checked. */
  cost: Cost;
  queuedAt: number;
  /** The queue entry's seq, which names it to the clearance; -1 for a message straight through. */
  seq: number;
  /** What the entry carries for the clearance (QueuedMessage.scope); undefined straight through. */
  scope: unknown;
  /** The id it was queued with: a delivery with one may be settled later (ACTUAL_COST). */
  id: unknown;
}

/** A send record for a pass or an event, before its first message is set. */
export function sendRecord(
  context: MachineContext,
  effects: Effects,
  self: AnyActorRef,
  target: AnyActorRef,
  emitDelivery: boolean,
): Send {
  return {
    context,
    effects,
    self,
    target,
    emitDelivery,
    message: NO_MESSAGE,
    channel: undefined,
    cost: 1,
    queuedAt: 0,
    seq: -1,
    scope: undefined,
    id: undefined,
  };
}

/** What a send record holds until its first message is set. */
const NO_MESSAGE: Message = { type: '' };

/**
 * Sends the record's message to its target and records the delivery: the one way a message is
 * delivered, queued or not. Returns the time it was recorded at.
 */
export function sendNow(send: Send, now: number): number {
  const { context, message, channel, cost, queuedAt } = send;
  relay(send.self, send.target, message);
  // Recorded on a fresh reading taken once the target has the message: then a window never
  // closes before the target saw what opened it, and receipts on a real clock keep the strict
  // limit too (one reading before a loop of sends dated the later sends too early: W3 in bench/).
  const at = Math.max(now, context.now());
  context.dispatcher.recordDelivery(send, at, queuedAt);
  if (send.emitDelivery) {
    const shown = typeof cost === 'number' ? cost : costInput(cost, context.dispatcher.options.dimensions);
    send.effects.emit({ type: 'delivered', message, channel, cost: shown, at, queuedAt });
  }
  return at;
}

/** Where a run of sends stopped. */
interface SendRun {
  /** The target, or undefined once it was found stopped. */
  target: AnyActorRef | undefined;
  /** When the next message may go (> now unless the run was held or the target lost). */
  nextAt: number;
  /** The run stopped because the slice is spent or the adapter's gate closed. */
  held: boolean;
  now: number;
}

/**
 * Sends every message whose time has come, in order, one by one (a target that stops on one
 * message must not swallow the rest). A target found stopped is let go of and reported with
 * `targetLost` when `reportLostTarget`; otherwise the run just stops there.
 */
export function sendWhatIsDue(
  context: MachineContext,
  effects: Effects,
  self: AnyActorRef,
  now: number,
  reportLostTarget: boolean,
  send?: Send,
): SendRun {
  const { dispatcher, pacer } = context;
  let target = context.target;
  let nextAt = Number.POSITIVE_INFINITY;
  let held = false;
  // Not started yet: nothing goes to it (it would get it all at once when it starts); noticeWork holds.
  if (awaitsStart(target)) return { target: undefined, nextAt, held, now };
  const record = send ?? (target && sendRecord(context, effects, self, target, listensTo(self, 'delivered')));
  // Asked once a pass, and only when a message is due (below): a throttler nobody instruments pays nothing.
  let emitDequeued: boolean | undefined;
  while (target !== undefined) {
    nextAt = dispatcher.chooseNext(now);
    if (nextAt > now) break;
    // Checked before every send: XState drops events sent to a stopped actor without a word.
    if (!isRunning(target)) {
      if (!reportLostTarget) break;
      // Keep the message, let go of the target.
      const waiting = dispatcher.chosen as QueuedMessage<Message>;
      effects.emit({ type: 'targetLost', target, message: waiting.message, at: now });
      target = undefined;
      break;
    }
    if (!pacer.maySend()) {
      held = true;
      break;
    }
    pacer.sent();
    const entry = dispatcher.takeChosen();
    const next = record as Send;
    next.message = entry.message;
    next.channel = entry.channel;
    next.cost = entry.cost;
    next.queuedAt = entry.queuedAt;
    next.seq = entry.seq;
    next.scope = entry.scope;
    next.id = entry.id;
    now = sendNow(next, now);
    emitDequeued ??= listensTo(self, 'dequeued');
    if (emitDequeued) {
      const { message, channel, queuedAt } = entry;
      const cost = typeof entry.cost === 'number' ? entry.cost : costInput(entry.cost, dispatcher.options.dimensions);
      effects.emit({ type: 'dequeued', message, channel, cost, queuedAt, at: now });
    }
  }
  return { target, nextAt, held, now };
}

/**
 * Delivers every message whose time has come (dropping those past their
 * deadline), then arms the one wake-up timer for the next time anything can
 * change (a delivery, or a deadline), and publishes the new context.
 * Timers may fire early, so this runs on every wake and never trusts the
 * timer: it asks the policies again. At most a slice of `maxDeliveriesPerTurn`
 * goes at once (less if the adapter's gate closes): the rest waits for a
 * zero-delay wake-up, after the events in the mailbox and a turn of the loop.
 * `armedAt`: when the wake-up timer is armed for (Infinity: none), the context's unless the caller
 * cancelled it in the same action.
 */
export function deliverDue(
  context: MachineContext,
  effects: Effects,
  self: AnyActorRef,
  now: number,
  armedAt = context.wakeAt,
): void {
  const { dispatcher } = context;
  const pacer = context.pacer;
  const pass = sendWhatIsDue(context, effects, self, now, true);
  const { nextAt, held } = pass;
  // A target that has not started is kept, though nothing went to it: `idle` holds for its start.
  const unstarted = awaitsStart(context.target);
  const target = unstarted ? context.target : pass.target;
  if (unstarted && hasWork(context)) holdForStart(context, effects, self, target as AnyActorRef);
  now = pass.now;
  emitDiscarded(context, effects);
  if (!held) pacer.endSlice();
  // The one timer also wakes for the earliest deadline, to drop that message if it has not gone by then.
  let wakeAt = target === undefined ? Number.POSITIVE_INFINITY : Math.min(nextAt, dispatcher.nextDeadline);
  // A held pass (the slice is spent, or the adapter's gate closed) wakes again at once, after the mailbox.
  if (!(wakeAt > now)) wakeAt = held ? now : Number.POSITIVE_INFINITY;
  if (wakeAt !== armedAt) {
    if (armedAt !== Number.POSITIVE_INFINITY) effects.cancel(WAKE_UP_ID);
    if (wakeAt !== Number.POSITIVE_INFINITY) {
      // Rounded up unless the clock keeps fractions: setTimeout truncates them, and a timer a fraction
      // of a millisecond early would only wake us to wait again. A rounding error past a whole ms (a sum
      // of permit intervals) is no reason to wait a round more; a wait is at least 1 ms, so nothing spins
      // (0 is the held pass's wake-up after the mailbox).
      const exact = wakeAt - now;
      const rounded = exact === 0 ? 0 : Math.max(1, Math.ceil(exact - GRANT_TOLERANCE_MS));
      const delay = Math.min(MAX_TIMER_DELAY, dispatcher.wakesExactly ? exact : rounded);
      effects.raise(WAKE_EVENT, { id: WAKE_UP_ID, delay });
    }
  }
  effects.assign(published(context, target, wakeAt));
  // Every event in `active` ends here, so this is where `active` learns it has nothing left to do.
  if (target === undefined || awaitsStart(target) || !hasWork(context)) effects.raise(DRAINED_EVENT);
}

/**
 * In `idle`, after anything that may have given the throttler work: with a
 * target and something waiting, it goes `active`. A target that has stopped
 * is let go of here instead, as `deliverDue` would, without a pass through
 * `active` that would tell listeners it had started and stopped delivering.
 */
export function noticeWork(context: MachineContext, effects: Effects, self: AnyActorRef): void {
  const { target, dispatcher } = context;
  if (target === undefined || !hasWork(context)) return;
  if (awaitsStart(target)) {
    holdForStart(context, effects, self, target);
    return;
  }
  // The policies are not asked here: in `idle` they have not been activated, and asking would start their periods.
  const waiting = dispatcher.peekOldest();
  if (waiting === undefined || isRunning(target)) {
    effects.raise(WORK_WAITING_EVENT);
    return;
  }
  effects.emit({ type: 'targetLost', target, message: waiting.message, at: context.now() });
  effects.assign(published(context, undefined, context.wakeAt));
}
