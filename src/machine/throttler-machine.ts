import { type AnyActorRef, type AnyEventObject, enqueueActions, setup } from 'xstate';
import { parseRates, ThrottlerOptionError } from '../rate/index.js';
import { DeliveryPacer, pacerOf, setPacer } from './delivery-pacer.js';
import { Dispatcher, type DropReason } from './dispatcher.js';
import { resolveOptions } from './options.js';
import type { QueuedMessage } from './queued-message.js';
import type { QueueEvent, ThrottlerContext, ThrottlerEmitted, ThrottlerEvent, ThrottlerInput } from './types.js';

/** The id of the single wake-up timer, so it can be cancelled before it is armed again. */
const WAKE_UP_ID = 'throttler.wakeUp';

/**
 * setTimeout fires at once for delays of 2^31 ms or more (XState passes delays
 * through unchecked), so longer waits are armed in chunks; every wake re-checks.
 */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

type Message = AnyEventObject;

const DROP_EXPLANATIONS: Record<DropReason, string> = {
  'drop-oldest': 'the queue was full (overflow: "drop-oldest") and a newer message took its place',
  'drop-newest': 'the queue was full (overflow: "drop-newest") and a newer message took its place',
  cancelled: 'it was cancelled before it was delivered',
  'cost-exceeds-limit': 'its cost is larger than the limit now in force, so it could never be delivered',
};

function isActorRef(value: unknown): value is AnyActorRef {
  return typeof value === 'object' && value !== null && typeof (value as AnyActorRef).send === 'function';
}

function hasWork(context: ThrottlerContext, now: number): boolean {
  return !context.dispatcher.isEmpty || context.dispatcher.holdsActiveUntil() > now;
}

/** The `dropped` events for what left the queue undelivered since the last look. */
function takeDiscarded(context: ThrottlerContext): ThrottlerEmitted[] {
  const { discarded } = context.dispatcher;
  if (discarded.length === 0) return [];
  const events: ThrottlerEmitted[] = discarded.map(({ entry, reason }) => ({
    type: 'dropped',
    message: entry.message,
    reason,
    error: new Error(`Message dropped: ${DROP_EXPLANATIONS[reason]}`),
  }));
  discarded.length = 0;
  return events;
}

/** What every change assigns: fresh counts and a new version, so the snapshot differs from the last. */
function published(
  context: ThrottlerContext,
  target: ThrottlerContext['target'],
  wakeAt: number,
): () => Partial<ThrottlerContext> {
  const { queued, delivered, dropped, rejected } = context.dispatcher.counts;
  // One fixed shape, built once per event: this runs for every message.
  const update = {
    target,
    wakeAt,
    counts: { queued, delivered, dropped, rejected },
    inFlight: context.dispatcher.inFlightCount,
    version: context.version + 1,
  };
  return () => update;
}

/** The part of enqueueActions' enqueuer this machine uses, typed for its own events. */
interface Effects {
  emit(event: ThrottlerEmitted): void;
  cancel(id: string): void;
  raise(event: { type: 'WAKE' }, options: { id: string; delay: number }): void;
  raise(event: { type: 'DRAINED' | 'WORK_WAITING' }): void;
  assign(changes: () => Partial<ThrottlerContext>): void;
}

/**
 * Whether anyone listens for an emitted event type. Building, resolving and
 * deferring an emit action per delivery costs more than the delivery itself,
 * and XState would drop it anyway; if its internals ever change, we emit always.
 */
function listensTo(self: AnyActorRef, type: ThrottlerEmitted['type']): boolean {
  const listeners = (self as unknown as { eventListeners?: unknown }).eventListeners;
  if (!(listeners instanceof Map)) return true;
  return (listeners.get(type)?.size ?? 0) > 0 || (listeners.get('*')?.size ?? 0) > 0;
}

/**
 * Sends a message to the target the way XState's sendTo does (through the
 * system, so inspectors see who sent it), falling back to a plain send.
 */
function relay(self: AnyActorRef, target: AnyActorRef, message: Message): void {
  const system = self.system as { _relay?: (source: AnyActorRef, target: AnyActorRef, event: Message) => void };
  if (typeof system._relay === 'function') system._relay(self, target, message);
  else target.send(message);
}

/**
 * Sends one message to the target and records the delivery: the one way a
 * message is delivered, queued or not. Returns the time it was recorded at.
 */
function sendNow(
  context: ThrottlerContext,
  effects: Effects,
  self: AnyActorRef,
  target: AnyActorRef,
  message: Message,
  channel: string | undefined,
  cost: number,
  queuedAt: number | undefined,
  now: number,
  emitDelivery: boolean,
): number {
  relay(self, target, message);
  // Recorded on a fresh reading taken once the target has the message: then a window never
  // closes before the target saw what opened it, and receipts on a real clock keep the strict
  // limit too (one reading before a loop of sends dated the later sends too early: W3 in bench/).
  const at = Math.max(now, context.now());
  context.dispatcher.recordDelivery(channel, cost, at);
  if (emitDelivery) effects.emit({ type: 'delivered', message, channel, cost, at, queuedAt: queuedAt ?? at });
  return at;
}

/** Whether a target can still receive: XState drops events sent to a stopped actor without a word. */
function isRunning(target: AnyActorRef): boolean {
  return target.getSnapshot().status === 'active';
}

/** The delivery loop's pacer: how many more sends this turn, and the adapter's gate. */
function pacerFor(context: ThrottlerContext): DeliveryPacer {
  return pacerOf(context.dispatcher, context.dispatcher.maxDeliveriesPerTurn);
}

/**
 * Checks a QUEUE event's message and queues it, emitting what was rejected or
 * displaced; with `deliverNow`, a message that nothing waits ahead of and that
 * the rate allows now goes to the target at once instead, without a queue
 * entry. Returns the clock reading to go on with.
 */
function acceptMessage(
  context: ThrottlerContext,
  event: Omit<QueueEvent<Message>, 'type'>,
  effects: Effects,
  self: AnyActorRef,
  arrivedAt: number,
  now: number,
  deliverNow: boolean,
): number {
  const { dispatcher } = context;
  let cost: number;
  try {
    cost = dispatcher.checkMessage(event.channel, event.cost);
  } catch (error) {
    dispatcher.counts.rejected += 1;
    effects.emit({ type: 'rejected', message: event.message, reason: 'invalid', error: error as Error });
    return now;
  }
  if (deliverNow && dispatcher.isEmpty && dispatcher.allowsNow(event.channel, cost, now)) {
    const { target } = context;
    const pacer = pacerFor(context);
    // Asked last, only for a message that would go: a no holds it and the rest for a later turn.
    if (target !== undefined && isRunning(target) && pacer.maySend()) {
      const emitDelivery = listensTo(self, 'delivered');
      pacer.sent();
      return sendNow(context, effects, self, target, event.message, event.channel, cost, arrivedAt, now, emitDelivery);
    }
  }
  if (dispatcher.enqueue(event.message, event.channel, cost, event.id, arrivedAt) === 'rejected') {
    effects.emit({
      type: 'rejected',
      message: event.message,
      reason: 'overflow',
      error: new Error('Message rejected: the queue is full (overflow: "reject")'),
    });
  }
  for (const dropped of takeDiscarded(context)) effects.emit(dropped);
  return now;
}

/**
 * Takes in what a QUEUE or QUEUE_BATCH event carries, in order, each message as
 * `acceptMessage` does: a burst the rate allows at once never enters the queue.
 * Every message of the event arrived at `arrivedAt`; `now` moves on as
 * deliveries are made. Returns the clock reading to go on with.
 */
function acceptQueued(
  context: ThrottlerContext,
  event: ThrottlerEvent,
  effects: Effects,
  self: AnyActorRef,
  arrivedAt: number,
  deliverNow: boolean,
): number {
  pacerFor(context).beginPass();
  if (event.type === 'QUEUE') return acceptMessage(context, event, effects, self, arrivedAt, arrivedAt, deliverNow);
  if (event.type !== 'QUEUE_BATCH') return arrivedAt;
  let now = arrivedAt;
  for (const entry of event.messages) now = acceptMessage(context, entry, effects, self, arrivedAt, now, deliverNow);
  return now;
}

/**
 * Delivers every message whose time has come, then arms the one wake-up timer
 * for the next time anything can change, and publishes the new context.
 * Timers may fire early, so this runs on every wake and never trusts the
 * timer: it asks the policies again. At most a slice of `maxDeliveriesPerTurn`
 * goes at once (less if the adapter's gate closes): the rest waits for a
 * zero-delay wake-up, after the events in the mailbox and a turn of the loop.
 */
function deliverDue(context: ThrottlerContext, effects: Effects, self: AnyActorRef, now: number): void {
  const { dispatcher } = context;
  const pacer = pacerFor(context);
  let target = context.target;
  let nextAt = Number.POSITIVE_INFINITY;
  let held = false;
  const emitDeliveries = target !== undefined && listensTo(self, 'delivered');
  while (target !== undefined) {
    nextAt = dispatcher.nextDeliveryTime(now);
    if (nextAt > now) break;
    // Checked before every send, and the sends are made here one by one rather
    // than deferred: a target that stops on one message must not swallow the rest.
    if (!isRunning(target)) {
      // XState drops events sent to a stopped actor without a word: keep the message, let go of the target.
      const waiting = dispatcher.peekCandidate() as QueuedMessage<Message>;
      effects.emit({ type: 'targetLost', target, message: waiting.message, at: now });
      target = undefined;
      break;
    }
    if (!pacer.maySend()) {
      held = true;
      break;
    }
    pacer.sent();
    const entry = dispatcher.takeCandidate();
    now = sendNow(
      context,
      effects,
      self,
      target,
      entry.message,
      entry.channel,
      entry.cost,
      entry.queuedAt,
      now,
      emitDeliveries,
    );
  }
  for (const dropped of takeDiscarded(context)) effects.emit(dropped);
  if (!held) pacer.endSlice();
  let wakeAt = Number.POSITIVE_INFINITY;
  if (target !== undefined) wakeAt = dispatcher.isEmpty ? dispatcher.holdsActiveUntil() : nextAt;
  if (!(wakeAt > now)) wakeAt = held ? now : Number.POSITIVE_INFINITY;
  if (wakeAt !== context.wakeAt) {
    if (context.wakeAt !== Number.POSITIVE_INFINITY) effects.cancel(WAKE_UP_ID);
    if (wakeAt !== Number.POSITIVE_INFINITY) {
      // Rounded up unless the clock keeps fractions: setTimeout truncates them, and a timer a fraction
      // of a millisecond early would only wake us to wait again.
      const exact = wakeAt - now;
      const delay = Math.min(MAX_TIMER_DELAY, dispatcher.wakesExactly ? exact : Math.ceil(exact));
      effects.raise({ type: 'WAKE' }, { id: WAKE_UP_ID, delay });
    }
  }
  effects.assign(published(context, target, wakeAt));
  // Every event in `active` ends here, so this is where `active` learns it has nothing left to do.
  if (target === undefined || !hasWork(context, now)) effects.raise({ type: 'DRAINED' });
}

/**
 * Whether an idle throttler may pass this message straight through and stay
 * idle: a target, nothing waiting, the policies allow it now, and no voucher
 * period would keep it active afterwards (the timer strategy always goes active).
 */
function passesStraightThrough(context: ThrottlerContext, event: QueueEvent<Message>, now: number): boolean {
  const { dispatcher, target } = context;
  if (target === undefined || !dispatcher.isEmpty || dispatcher.keepsActiveAfterDelivery) return false;
  // A stopped target takes the long way, where the message is kept and the target let go of.
  return dispatcher.allowsNow(event.channel, event.cost ?? 1, now) && isRunning(target);
}

/**
 * The idle fast path, once `passesStraightThrough` said yes: the message goes to
 * the target at once, without a queue entry. The most common event there is, so
 * it does only what a delivery must: send, record, tell listeners, publish.
 */
function passThrough(context: ThrottlerContext, event: QueueEvent<Message>, effects: Effects, self: AnyActorRef): void {
  const target = context.target as AnyActorRef;
  const emitDelivery = listensTo(self, 'delivered');
  const { message, channel, cost = 1 } = event;
  const arrivedAt = context.now();
  sendNow(context, effects, self, target, message, channel, cost, arrivedAt, arrivedAt, emitDelivery);
  effects.assign(published(context, target, context.wakeAt));
}

/**
 * In `idle`, after anything that may have given the throttler work: with a
 * target and something waiting, it goes `active`. A target that has stopped
 * is let go of here instead, as `deliverDue` would, without a pass through
 * `active` that would tell listeners it had started and stopped delivering.
 */
function noticeWork(context: ThrottlerContext, effects: Effects): void {
  const { target, dispatcher } = context;
  const now = context.now();
  if (target === undefined || !hasWork(context, now)) return;
  // With nothing queued, only a voucher period keeps it busy: no message is at risk. (The policies
  // are not asked here: in `idle` they have not been activated, and asking would start their periods.)
  const waiting = dispatcher.peekOldest();
  if (waiting === undefined || isRunning(target)) {
    effects.raise({ type: 'WORK_WAITING' });
    return;
  }
  effects.emit({ type: 'targetLost', target, message: waiting.message, at: now });
  effects.assign(published(context, undefined, context.wakeAt));
}

/**
 * The throttler: an XState v5 machine, `idle` or `active`, that queues
 * messages (QUEUE) and forwards them to a target actor (SET_TARGET) no faster
 * than its rate allows. Active if and only if a target is set and a message
 * waits or the strategy's voucher period is still running; in `idle` no timer
 * is pending. One wake-up timer at most, re-armed only when its time changes.
 *
 * The switch between the two is a raised event (WORK_WAITING, DRAINED) from the
 * actions that can change it, not an `always` transition: XState evaluates
 * eventless guards after every event, and on the path one message takes that
 * was 8% of the machine's time (bench/README.md, W1).
 */
export const throttlerMachine = setup({
  types: {
    context: {} as ThrottlerContext,
    input: {} as ThrottlerInput,
    events: {} as ThrottlerEvent,
    emitted: {} as ThrottlerEmitted,
  },
  guards: {
    shouldBeActive: ({ context }) => context.target !== undefined && hasWork(context, context.now()),
    shouldBeIdle: ({ context }) => context.target === undefined || !hasWork(context, context.now()),
    passesStraightThrough: ({ context, event }) =>
      event.type === 'QUEUE' && passesStraightThrough(context, event, context.now()),
  },
  actions: {
    passThrough: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type === 'QUEUE') passThrough(context, event, enqueue as unknown as Effects, self);
    }),
    noticeWork: enqueueActions(({ context, enqueue }) => {
      noticeWork(context, enqueue as unknown as Effects);
    }),
    queueMessage: enqueueActions(({ context, event, enqueue, self }) => {
      const effects = enqueue as unknown as Effects;
      // In `idle` only a batch can go at once here (a single QUEUE that could takes passThrough);
      // not with the timer strategy, whose every delivery starts a voucher period in `active`.
      const deliverNow = event.type === 'QUEUE_BATCH' && !context.dispatcher.keepsActiveAfterDelivery;
      acceptQueued(context, event, effects, self, context.now(), deliverNow);
      effects.assign(published(context, context.target, context.wakeAt));
    }),
    queueAndDeliver: enqueueActions(({ context, event, enqueue, self }) => {
      const effects = enqueue as unknown as Effects;
      const now = acceptQueued(context, event, effects, self, context.now(), true);
      deliverDue(context, effects, self, now);
    }),
    deliverDue: enqueueActions(({ context, enqueue, self }) => {
      deliverDue(context, enqueue as unknown as Effects, self, context.now());
    }),
    setTarget: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SET_TARGET') return;
      if (event.target !== undefined && !isActorRef(event.target)) {
        enqueue.emit({
          type: 'invalidEvent',
          event,
          error: new ThrottlerOptionError('target', 'an actor ref or undefined', event.target),
        });
        return;
      }
      enqueue.assign(published(context, event.target, context.wakeAt));
    }),
    setRate: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SET_RATE') return;
      try {
        const option = event.channel === undefined ? 'rate' : `channels.${event.channel}`;
        context.dispatcher.setRates(parseRates(event.rate, option), event.channel, context.now());
      } catch (error) {
        // The running actor stays as it was: a bad rate is reported, never half-applied.
        enqueue.emit({ type: 'invalidEvent', event, error: error as Error });
        return;
      }
      enqueue.assign(published(context, context.target, context.wakeAt));
    }),
    cancelMessage: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'CANCEL') return;
      if (context.dispatcher.cancel(event.id)) {
        for (const dropped of takeDiscarded(context)) enqueue.emit(dropped);
        enqueue.assign(published(context, context.target, context.wakeAt));
      }
    }),
    pause: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'PAUSE') return;
      const now = context.now();
      const { until, duration } = event;
      if (until !== undefined && (typeof until !== 'number' || Number.isNaN(until))) {
        enqueue.emit({
          type: 'invalidEvent',
          event,
          error: new ThrottlerOptionError('until', 'a time in ms on the throttler clock', until),
        });
        return;
      }
      if (duration !== undefined && (typeof duration !== 'number' || !(duration >= 0))) {
        enqueue.emit({
          type: 'invalidEvent',
          event,
          error: new ThrottlerOptionError('duration', 'a duration >= 0 in ms', duration),
        });
        return;
      }
      context.dispatcher.pause(until ?? (duration === undefined ? Number.POSITIVE_INFINITY : now + duration));
      enqueue.assign(published(context, context.target, context.wakeAt));
    }),
    settle: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SETTLED') return;
      context.dispatcher.settle(event.channel, event.cost ?? 1, context.now());
      enqueue.assign(published(context, context.target, context.wakeAt));
    }),
    tryAcquire: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'TRY_ACQUIRE') return;
      // Answered too late: the sender gave up waiting (see TryAcquireEvent), so nobody would hold the permit.
      if (event.reply?.cancelled === true) return;
      const { dispatcher } = context;
      try {
        const cost = dispatcher.checkMessage(event.channel, event.cost);
        event.reply.waitMs = dispatcher.tryAcquire(event.channel, cost, context.now());
      } catch (error) {
        event.reply.error = error as Error;
        return;
      }
      enqueue.assign(published(context, context.target, context.wakeAt));
    }),
    resume: enqueueActions(({ context, enqueue }) => {
      context.dispatcher.resume();
      enqueue.assign(published(context, context.target, context.wakeAt));
    }),
    activatePolicies: enqueueActions(({ context, enqueue, self }) => {
      const now = context.now();
      context.dispatcher.activate(now);
      if (listensTo(self, 'activated')) enqueue.emit({ type: 'activated', at: now });
    }),
    /** The timer that woke us is spent; forget it so deliverDue arms a fresh one if needed. A new turn: a full slice. */
    forgetSpentWakeUp: enqueueActions(({ context, enqueue }) => {
      pacerFor(context).endSlice();
      enqueue.assign({ wakeAt: Number.POSITIVE_INFINITY });
    }),
    disarmWakeUp: enqueueActions(({ context, enqueue, self }) => {
      if (context.wakeAt !== Number.POSITIVE_INFINITY) {
        enqueue.cancel(WAKE_UP_ID);
        enqueue.assign({ wakeAt: Number.POSITIVE_INFINITY });
      }
      if (listensTo(self, 'idled')) enqueue.emit({ type: 'idled', at: context.now() });
    }),
  },
}).createMachine({
  id: 'throttler',
  description: 'Queues messages and forwards them to a target actor no faster than the rate allows.',
  context: ({ input }) => {
    const options = resolveOptions(input);
    if (input.target !== undefined && !isActorRef(input.target)) {
      throw new ThrottlerOptionError('target', 'an actor ref or undefined', input.target);
    }
    const { deliveryGate } = input;
    if (deliveryGate !== undefined && typeof deliveryGate !== 'function') {
      throw new ThrottlerOptionError('deliveryGate', 'a function', deliveryGate);
    }
    const dispatcher = new Dispatcher<Message>(options, options.now());
    setPacer(dispatcher, new DeliveryPacer(options.maxDeliveriesPerTurn, deliveryGate));
    return {
      dispatcher,
      now: options.now,
      target: input.target,
      wakeAt: Number.POSITIVE_INFINITY,
      counts: { queued: 0, delivered: 0, dropped: 0, rejected: 0 },
      inFlight: 0,
      version: 0,
    };
  },
  initial: 'idle',
  states: {
    idle: {
      description: 'No target, or nothing waiting and no voucher period running. No timer is pending.',
      on: {
        QUEUE: [
          {
            guard: 'passesStraightThrough',
            actions: 'passThrough',
            description: 'The rate allows it now and nothing waits: deliver at once and stay idle.',
          },
          {
            actions: ['queueMessage', 'noticeWork'],
            description: 'Queue a message; with a target the throttler becomes active to send it.',
          },
        ],
        QUEUE_BATCH: {
          actions: ['queueMessage', 'noticeWork'],
          description: 'Queue several messages in order; with a target the throttler becomes active to send them.',
        },
        WORK_WAITING: {
          guard: 'shouldBeActive',
          target: 'active',
          description: 'Raised here when a target is set and a message waits (or a voucher period runs).',
        },
        SET_TARGET: {
          actions: ['setTarget', 'noticeWork'],
          description: 'Set (or unset) the actor that receives the messages.',
        },
        SET_RATE: { actions: ['setRate', 'noticeWork'], description: "Replace the overall rate, or one channel's." },
        CANCEL: {
          actions: ['cancelMessage', 'noticeWork'],
          description: 'Take a waiting message out of the queue by its id.',
        },
        PAUSE: {
          actions: ['pause', 'noticeWork'],
          description: 'Deliver nothing until the given time (or until RESUME).',
        },
        RESUME: { actions: ['resume', 'noticeWork'], description: 'End a pause.' },
        SETTLED: { actions: ['settle', 'noticeWork'], description: 'A delivery finished on the receiving side.' },
        TRY_ACQUIRE: {
          actions: ['tryAcquire', 'noticeWork'],
          description: 'Take a permit now if one is free (with the timer strategy its voucher period starts).',
        },
      },
    },
    active: {
      description:
        'Delivering: a target is set and messages wait, or the voucher period is running. One wake-up timer.',
      entry: ['activatePolicies', 'deliverDue'],
      exit: 'disarmWakeUp',
      on: {
        DRAINED: {
          guard: 'shouldBeIdle',
          target: 'idle',
          description: 'Raised here when nothing waits and no voucher period runs, or the target is gone.',
        },
        QUEUE: { actions: 'queueAndDeliver', description: 'Queue a message and deliver it if the rate allows.' },
        QUEUE_BATCH: {
          actions: 'queueAndDeliver',
          description: 'Queue several messages in order and deliver what the rate allows.',
        },
        WAKE: {
          actions: ['forgetSpentWakeUp', 'deliverDue'],
          description: 'The wake-up timer fired: deliver what is due.',
        },
        SET_TARGET: { actions: ['setTarget', 'deliverDue'], description: 'Switch targets, or unset to go idle.' },
        SET_RATE: { actions: ['setRate', 'deliverDue'], description: 'Replace a rate; the wake-up is re-armed.' },
        CANCEL: { actions: ['cancelMessage', 'deliverDue'], description: 'Take a waiting message out by its id.' },
        PAUSE: { actions: ['pause', 'deliverDue'], description: 'Deliver nothing until the given time (or RESUME).' },
        RESUME: { actions: ['resume', 'deliverDue'], description: 'End a pause and deliver what is due.' },
        SETTLED: { actions: ['settle', 'deliverDue'], description: 'A delivery finished: its slot may free up.' },
        TRY_ACQUIRE: { actions: ['tryAcquire', 'deliverDue'], description: 'Take a permit now if one is free.' },
      },
    },
  },
});
