import { type AnyActorRef, type AnyEventObject, type EventObject, enqueueActions, setup } from 'xstate';
import { parseRates, ThrottlerOptionError } from '../rate/index.js';
import { DeliveryPacer, pacerOf, setPacer } from './delivery-pacer.js';
import type { DropReason } from './dispatcher.js';
import { batchEntryError, batchError, checkTarget, messageError, pauseUntil, replyError } from './event-checks.js';
import { initialContext } from './initial-context.js';
import { resolveOptions } from './options.js';
import type { QueuedMessage } from './queued-message.js';
import type { QueueEvent, ThrottlerContext, ThrottlerEmitted, ThrottlerEvent, ThrottlerInput } from './types.js';
import { listensTo, relay } from './xstate-internals.js';

/** The event types a user sends (WAKE, WORK_WAITING and DRAINED are the machine's own). */
const EVENT_TYPES = [
  'QUEUE',
  'QUEUE_BATCH',
  'SET_TARGET',
  'SET_RATE',
  'CANCEL',
  'PAUSE',
  'RESUME',
  'SETTLED',
  'TRY_ACQUIRE',
] as const;

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

/**
 * Whether a message waits. Only that keeps the throttler active: a timer period
 * that merely runs out with nothing queued needs no timer (the timer policy
 * works out its ticks from the time it is asked), so nothing holds the process
 * open while nothing waits.
 */
function hasWork(context: ThrottlerContext): boolean {
  return !context.dispatcher.isEmpty;
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
 * The one way the machine's actions get their effects, typed for its own
 * events (XState's enqueuer is typed for every action at once). After the
 * action, anything that went wrong reading the clock is reported against the
 * event that was being handled: a bad `now()` is seen, and time stood still.
 */
function withEffects(
  body: (context: ThrottlerContext, event: ThrottlerEvent, effects: Effects, self: AnyActorRef) => void,
) {
  return enqueueActions<
    ThrottlerContext,
    ThrottlerEvent,
    undefined,
    ThrottlerEvent,
    never,
    never,
    never,
    never,
    ThrottlerEmitted
  >(({ context, event, enqueue, self }) => {
    // The one cast: XState types the enqueuer for every action and delay of a machine at once.
    const effects = enqueue as unknown as Effects;
    body(context, event, effects, self);
    const fault = context.clock.takeFault();
    if (fault !== undefined) effects.emit({ type: 'invalidEvent', event, error: fault });
  });
}

/** Refuses an event the machine cannot act on: it is reported, and nothing changes. */
function refuse(effects: Effects, event: ThrottlerEvent | EventObject, error: Error): void {
  effects.emit({ type: 'invalidEvent', event, error });
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
  context.dispatcher.recordDelivery(channel, cost, at, queuedAt ?? now);
  if (emitDelivery) effects.emit({ type: 'delivered', message, channel, cost, at, queuedAt: queuedAt ?? at });
  return at;
}

/**
 * Whether a target can still receive: XState drops events sent to a stopped
 * actor without a word. A ref whose snapshot cannot be read counts as stopped,
 * so the message stays queued and `targetLost` says so.
 */
function isRunning(target: AnyActorRef): boolean {
  try {
    return target.getSnapshot()?.status === 'active';
  } catch {
    return false;
  }
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
    const invalidMessage = messageError(event.message);
    if (invalidMessage !== undefined) throw invalidMessage;
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
  const invalidBatch = batchError(event.messages);
  if (invalidBatch !== undefined) {
    refuse(effects, event, invalidBatch);
    return arrivedAt;
  }
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
  let wakeAt = target === undefined ? Number.POSITIVE_INFINITY : nextAt;
  // A held pass (the slice is spent, or the adapter's gate closed) wakes again at once, after the mailbox.
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
  if (target === undefined || !hasWork(context)) effects.raise({ type: 'DRAINED' });
}

/**
 * Whether an idle throttler may pass this message straight through and stay
 * idle: a target, nothing waiting, a valid message, the policies allow it now,
 * and the strategy delivers outside `active` (the timer's period starts on activation).
 */
function passesStraightThrough(context: ThrottlerContext, event: QueueEvent<Message>, now: number): boolean {
  const { dispatcher, target } = context;
  if (target === undefined || !dispatcher.isEmpty || dispatcher.deliversOnlyWhenActive) return false;
  if (messageError(event.message) !== undefined) return false;
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
  if (target === undefined || !hasWork(context)) return;
  // The policies are not asked here: in `idle` they have not been activated, and asking would start their periods.
  const waiting = dispatcher.peekOldest();
  if (waiting === undefined || isRunning(target)) {
    effects.raise({ type: 'WORK_WAITING' });
    return;
  }
  effects.emit({ type: 'targetLost', target, message: waiting.message, at: context.now() });
  effects.assign(published(context, undefined, context.wakeAt));
}

/**
 * The throttler: an XState v5 machine, `idle` or `active`, that queues
 * messages (QUEUE) and forwards them to a target actor (SET_TARGET) no faster
 * than its rate allows. Active if and only if a target is set and a message
 * waits; in `idle` no timer is pending. One wake-up timer at most, re-armed
 * only when its time changes.
 *
 * The switch between the two is a raised event (WORK_WAITING, DRAINED) from the
 * actions that can change it, not an `always` transition: XState evaluates
 * eventless guards after every event, and on the path one message takes that
 * was 8% of the machine's time (bench/README.md, W1).
 *
 * Every event is checked before it changes anything: a bad field is reported
 * (`invalidEvent`, or `rejected` for a message) and the queue stays as it was.
 * An event type the machine does not know is reported too, so a typo shows.
 */
export const throttlerMachine = setup({
  types: {
    context: {} as ThrottlerContext,
    input: {} as ThrottlerInput,
    events: {} as ThrottlerEvent,
    emitted: {} as ThrottlerEmitted,
  },
  guards: {
    shouldBeActive: ({ context }) => context.target !== undefined && hasWork(context),
    shouldBeIdle: ({ context }) => context.target === undefined || !hasWork(context),
    passesStraightThrough: ({ context, event }) =>
      event.type === 'QUEUE' && passesStraightThrough(context, event, context.now()),
  },
  actions: {
    passThrough: withEffects((context, event, effects, self) => {
      if (event.type === 'QUEUE') passThrough(context, event, effects, self);
    }),
    noticeWork: withEffects((context, _event, effects) => {
      noticeWork(context, effects);
    }),
    queueMessage: withEffects((context, event, effects, self) => {
      // In `idle` only a batch can go at once here (a single QUEUE that could takes passThrough);
      // not with the timer strategy, whose every delivery starts a voucher period in `active`.
      const deliverNow = event.type === 'QUEUE_BATCH' && !context.dispatcher.deliversOnlyWhenActive;
      acceptQueued(context, event, effects, self, context.now(), deliverNow);
      effects.assign(published(context, context.target, context.wakeAt));
    }),
    queueAndDeliver: withEffects((context, event, effects, self) => {
      const now = acceptQueued(context, event, effects, self, context.now(), true);
      deliverDue(context, effects, self, now);
    }),
    deliverDue: withEffects((context, _event, effects, self) => {
      deliverDue(context, effects, self, context.now());
    }),
    setTarget: withEffects((context, event, effects) => {
      if (event.type !== 'SET_TARGET') return;
      try {
        checkTarget(event.target);
      } catch (error) {
        refuse(effects, event, error as Error);
        return;
      }
      effects.assign(published(context, event.target, context.wakeAt));
    }),
    setRate: withEffects((context, event, effects) => {
      if (event.type !== 'SET_RATE') return;
      try {
        const option = event.channel === undefined ? 'rate' : `channels.${event.channel}`;
        context.dispatcher.setRates(parseRates(event.rate, option), event.channel, context.now());
      } catch (error) {
        // The running actor stays as it was: a bad rate is reported, never half-applied.
        refuse(effects, event, error as Error);
        return;
      }
      effects.assign(published(context, context.target, context.wakeAt));
    }),
    cancelMessage: withEffects((context, event, effects) => {
      if (event.type !== 'CANCEL') return;
      if (context.dispatcher.cancel(event.id)) {
        for (const dropped of takeDiscarded(context)) effects.emit(dropped);
        effects.assign(published(context, context.target, context.wakeAt));
      }
    }),
    pause: withEffects((context, event, effects) => {
      if (event.type !== 'PAUSE') return;
      try {
        context.dispatcher.pause(pauseUntil(event, context.now()));
      } catch (error) {
        refuse(effects, event, error as Error);
        return;
      }
      effects.assign(published(context, context.target, context.wakeAt));
    }),
    settle: withEffects((context, event, effects) => {
      if (event.type !== 'SETTLED') return;
      try {
        context.dispatcher.settle(event.channel, event.cost, context.now());
      } catch (error) {
        // A settle that matches nothing in flight changes nothing: it could open the window.
        refuse(effects, event, error as Error);
        return;
      }
      effects.assign(published(context, context.target, context.wakeAt));
    }),
    tryAcquire: withEffects((context, event, effects) => {
      if (event.type !== 'TRY_ACQUIRE') return;
      const invalidReply = replyError(event.reply);
      if (invalidReply !== undefined) {
        // No permit is taken for an answer nobody can read.
        refuse(effects, event, invalidReply);
        return;
      }
      // Answered too late: the sender gave up waiting (see TryAcquireEvent), so nobody would hold the permit.
      if (event.reply.cancelled === true) return;
      const { dispatcher } = context;
      try {
        const cost = dispatcher.checkMessage(event.channel, event.cost);
        event.reply.waitMs = dispatcher.tryAcquire(event.channel, cost, context.now());
      } catch (error) {
        event.reply.error = error as Error;
        return;
      }
      effects.assign(published(context, context.target, context.wakeAt));
    }),
    resume: withEffects((context, _event, effects) => {
      context.dispatcher.resume();
      effects.assign(published(context, context.target, context.wakeAt));
    }),
    refuseUnknownEvent: withEffects((_context, event, effects) => {
      const { type } = event as EventObject;
      refuse(effects, event, new ThrottlerOptionError('type', `one of ${EVENT_TYPES.join(', ')}`, type));
    }),
    activatePolicies: withEffects((context, _event, effects, self) => {
      const now = context.now();
      context.dispatcher.activate(now);
      if (listensTo(self, 'activated')) effects.emit({ type: 'activated', at: now });
    }),
    /**
     * The timer that woke us is spent; forget it so deliverDue arms a fresh one if needed. A new turn:
     * a full slice. Cancelled all the same: a WAKE sent from outside must not leave the real timer behind.
     */
    forgetSpentWakeUp: withEffects((context, _event, effects) => {
      pacerFor(context).endSlice();
      effects.cancel(WAKE_UP_ID);
      effects.assign(() => ({ wakeAt: Number.POSITIVE_INFINITY }));
    }),
    disarmWakeUp: withEffects((context, _event, effects, self) => {
      if (context.wakeAt !== Number.POSITIVE_INFINITY) {
        effects.cancel(WAKE_UP_ID);
        effects.assign(() => ({ wakeAt: Number.POSITIVE_INFINITY }));
      }
      if (listensTo(self, 'idled')) effects.emit({ type: 'idled', at: context.now() });
    }),
  },
}).createMachine({
  id: 'throttler',
  description: 'Queues messages and forwards them to a target actor no faster than the rate allows.',
  context: ({ input }) => {
    const context = initialContext(resolveOptions(input), checkTarget(input.target));
    const { deliveryGate } = input;
    if (deliveryGate !== undefined && typeof deliveryGate !== 'function') {
      throw new ThrottlerOptionError('deliveryGate', 'a function', deliveryGate);
    }
    setPacer(context.dispatcher, new DeliveryPacer(context.dispatcher.maxDeliveriesPerTurn, deliveryGate));
    return context;
  },
  initial: 'idle',
  states: {
    idle: {
      description: 'No target, or nothing waiting. No timer is pending.',
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
        WORK_WAITING: [
          {
            guard: 'shouldBeActive',
            target: 'active',
            description: 'Raised here when a target is set and a message waits.',
          },
          // Without this, a WORK_WAITING whose guard fails would fall through to the wildcard.
          { description: 'No target, or nothing waits: stay idle.' },
        ],
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
        WAKE: { description: 'Nothing is due in idle: a wake-up (only ever sent from outside) is ignored.' },
        DRAINED: { description: 'Already idle.' },
        '*': { actions: 'refuseUnknownEvent', description: 'An unknown event type: reported as invalidEvent.' },
      },
    },
    active: {
      description: 'Delivering: a target is set and messages wait. One wake-up timer.',
      entry: ['activatePolicies', 'deliverDue'],
      exit: 'disarmWakeUp',
      on: {
        DRAINED: [
          {
            guard: 'shouldBeIdle',
            target: 'idle',
            description: 'Raised here when nothing waits, or the target is gone.',
          },
          // Without this, a DRAINED whose guard fails would fall through to the wildcard.
          { description: 'Messages still wait for the target: stay active.' },
        ],
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
        WORK_WAITING: { description: 'Already active.' },
        '*': { actions: 'refuseUnknownEvent', description: 'An unknown event type: reported as invalidEvent.' },
      },
    },
  },
});
