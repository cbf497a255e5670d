import { assign, type EventObject, setup } from 'xstate';
import { byValueOnly, byValueResolved, type StrategyLookup } from '../engine/options/strategy-option.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { acceptQueued, passesStraightThrough, passThrough } from './accept.js';
import {
  cancelMessage,
  pause,
  reportStoreRewound,
  reportStoreSlow,
  reportStoreStatus,
  resume,
  setRate,
  setTarget,
  settle,
  settleActual,
  tryAcquire,
} from './control.js';
import { deliverDue, hasWork, noticeWork } from './deliver.js';
import { published, refuse, WAKE_UP_ID, withEffects } from './effects.js';
import { contextFromInput } from './initial-context.js';
import { endLease, grantLease } from './lease-actions.js';
import type { MachineContext, MachineEvent, MachineInput } from './machine-types.js';
import { EVENT_TYPES, isOwnEvent, REFUSED_FROM_OUTSIDE } from './own-events.js';
import type { PublicMachine } from './public-machine.js';
import {
  passAheadQuietly,
  passesAheadQuietly,
  passesQuietly,
  passQuietly,
  queueQuietly,
  queuesQuietly,
} from './quiet.js';
import { awaitsStart } from './target-start.js';
import type { ThrottlerEmitted } from './types.js';
import { listensTo } from './xstate-internals.js';

/** The machine's guards and actions, with the library's own types; the machines below share them. */
const throttlerSetup = setup({
  types: {
    context: {} as MachineContext,
    input: {} as MachineInput,
    events: {} as MachineEvent,
    emitted: {} as ThrottlerEmitted,
  },
  guards: {
    sentFromOutside: ({ event }) => !isOwnEvent(event),
    passesQuietly: ({ context, event }) => passesQuietly(context, event),
    queuesQuietly: ({ context, event }) => queuesQuietly(context, event),
    passesAheadQuietly: ({ context, event }) => passesAheadQuietly(context, event),
    shouldBeActive: ({ context }) => context.target !== undefined && !awaitsStart(context.target) && hasWork(context),
    shouldBeIdle: ({ context }) => context.target === undefined || awaitsStart(context.target) || !hasWork(context),
    passesStraightThrough: ({ context, event }) =>
      event.type === 'QUEUE' &&
      !context.dispatcher.lease.isOpen &&
      passesStraightThrough(context, event, context.now()),
  },
  actions: {
    // Plain assigns: the quiet paths (quiet.ts) have nothing to emit, raise or cancel.
    passThroughQuietly: assign(({ context, event, self }) => passQuietly(context, event, self)),
    queueQuietly: assign(({ context, event }) => queueQuietly(context, event)),
    passAheadQuietly: assign(({ context, event, self }) => passAheadQuietly(context, event, self)),
    passThrough: withEffects((context, event, effects, self) => {
      if (event.type === 'QUEUE') passThrough(context, event, effects, self);
    }),
    // After another action of its transition (alone only on TARGET_STARTED, which goes on from a held start).
    noticeWork: withEffects((context, _event, effects, self) => noticeWork(context, effects, self), true),
    queueMessage: withEffects((context, event, effects, self) => {
      // In `idle` a single QUEUE that could go at once took passThrough already, so only a batch's messages
      // may go at once here (and a QUEUE whose cost is per dimension, which passThrough does not judge); never
      // with the timer strategy, whose deliveries may need the period activation starts.
      const perDimension = event.type === 'QUEUE' && typeof event.cost === 'object' && event.cost !== null;
      const deliverNow =
        (event.type === 'QUEUE_BATCH' || perDimension) && !context.dispatcher.startsPeriodsOnActivation;
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
    setTarget: withEffects(setTarget),
    setRate: withEffects(setRate),
    cancelMessage: withEffects(cancelMessage),
    pause: withEffects(pause),
    settle: withEffects(settle),
    settleActual: withEffects(settleActual),
    tryAcquire: withEffects(tryAcquire),
    grantLease: withEffects(grantLease),
    endLease: withEffects(endLease),
    resume: withEffects(resume),
    refuseUnknownEvent: withEffects((_context, event, effects) => {
      const { type } = event as EventObject;
      refuse(effects, event, new ThrottlerOptionError('type', `one of ${EVENT_TYPES.join(', ')}`, type));
    }),
    reportStoreStatus: withEffects(reportStoreStatus),
    reportStoreSlow: withEffects(reportStoreSlow),
    reportStoreRewound: withEffects(reportStoreRewound),
    activatePolicies: withEffects((context, _event, effects, self) => {
      const now = context.now();
      context.dispatcher.activate(now);
      if (listensTo(self, 'activated')) effects.emit({ type: 'activated', at: now });
    }),
    /**
     * The timer that woke us is spent; forgotten, so deliverDue arms a fresh one if needed. A new turn:
     * a full slice. Cancelled all the same, so that no timer can stay behind. One action, not two: each
     * `enqueueActions` costs XState about what the rest of a wake-up does.
     */
    wakeUp: withEffects((context, _event, effects, self) => {
      context.pacer.endSlice();
      effects.cancel(WAKE_UP_ID);
      deliverDue(context, effects, self, context.now(), Number.POSITIVE_INFINITY);
    }),
    disarmWakeUp: withEffects((context, _event, effects, self) => {
      if (context.wakeAt !== Number.POSITIVE_INFINITY) {
        effects.cancel(WAKE_UP_ID);
        effects.assign(() => ({ wakeAt: Number.POSITIVE_INFINITY }));
      }
      if (listensTo(self, 'idled')) effects.emit({ type: 'idled', at: context.now() });
    }),
  },
});

/** A QUEUE in `active`: the two quiet paths first (quiet.ts), then the ordinary one. */
const queueWhileActive = [
  {
    guard: 'queuesQuietly',
    actions: 'queueQuietly',
    description: 'It joins the queue behind a head that waits for the armed wake-up: nothing else changes.',
  },
  {
    guard: 'passesAheadQuietly',
    actions: 'passAheadQuietly',
    description: 'Nothing waits on its channel and the rate allows it now: sent, the wake-up left armed.',
  },
  { actions: 'queueAndDeliver', description: 'Queue a message and deliver it if the rate allows.' },
] as const;

/**
 * The machine, whose input's strategy, when not a value, is read by `lookup`: by any name (the main
 * entry's), or by none (xstate-throttler/lean's: the strategy is a value, so the machine imports no policy).
 */
export function machineKnowing(lookup: StrategyLookup) {
  // Alike in both states: what the store tells that asks for no delivery, and an unknown event.
  const storeNewsAnyState = {
    STORE_SLOW: [
      REFUSED_FROM_OUTSIDE,
      { actions: 'reportStoreSlow', description: "The store's link is slower than its grace: storeSlow." },
    ],
    STORE_REWOUND: [
      REFUSED_FROM_OUTSIDE,
      { actions: 'reportStoreRewound', description: 'Grants given back or moved: storeGrantsRewound.' },
    ],
  } as const;
  const unknownAnyState = {
    '*': { actions: 'refuseUnknownEvent', description: 'An unknown event type: reported as invalidEvent.' },
  } as const;
  return throttlerSetup.createMachine({
    id: 'throttler',
    description: 'Queues messages and forwards them to a target actor no faster than the rate allows.',
    context: ({ input, self }) => contextFromInput(input, self, lookup),
    initial: 'idle',
    states: {
      idle: {
        description: 'No target, or nothing waiting. No timer is pending.',
        on: {
          QUEUE: [
            {
              guard: 'passesQuietly',
              actions: 'passThroughQuietly',
              description: 'As below, with nothing to tell anyone: the snapshot is all that changes.',
            },
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
            REFUSED_FROM_OUTSIDE,
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
          ACTUAL_COST: { actions: ['settleActual', 'noticeWork'], description: "A delivery's actual cost, known now." },
          TRY_ACQUIRE: {
            actions: ['tryAcquire', 'noticeWork'],
            description: 'Take a permit now if one is free (with the timer strategy its voucher period starts).',
          },
          LEASE: [
            REFUSED_FROM_OUTSIDE,
            { actions: 'grantLease', description: 'Permits valid now, for a sender that starts the work itself.' },
          ],
          LEASE_END: [
            REFUSED_FROM_OUTSIDE,
            { actions: 'endLease', description: 'The lease is spent: what it started counts as delivered.' },
          ],
          WAKE: [REFUSED_FROM_OUTSIDE, { description: 'A wake-up left over from `active`: nothing is due in idle.' }],
          CLEARANCE: [REFUSED_FROM_OUTSIDE, { description: "A store's answer while idle: nothing waits for it." }],
          ...storeNewsAnyState,
          STORE_STATUS: [
            REFUSED_FROM_OUTSIDE,
            {
              actions: 'reportStoreStatus',
              description: 'News from the store: storeDown / storeUp, storeConflict, storeQuarantined.',
            },
          ],
          DRAINED: [REFUSED_FROM_OUTSIDE, { description: 'Already idle.' }],
          TARGET_STARTED: [
            REFUSED_FROM_OUTSIDE,
            { actions: 'noticeWork', description: 'The target set before it started has started: go on.' },
          ],
          ...unknownAnyState,
        },
      },
      active: {
        description: 'Delivering: a target is set and messages wait. One wake-up timer.',
        entry: ['activatePolicies', 'deliverDue'],
        exit: 'disarmWakeUp',
        on: {
          DRAINED: [
            REFUSED_FROM_OUTSIDE,
            {
              guard: 'shouldBeIdle',
              target: 'idle',
              description: 'Raised here when nothing waits, or the target is gone.',
            },
            // Without this, a DRAINED whose guard fails would fall through to the wildcard.
            { description: 'Messages still wait for the target: stay active.' },
          ],
          QUEUE: queueWhileActive,
          QUEUE_BATCH: {
            actions: 'queueAndDeliver',
            description: 'Queue several messages in order and deliver what the rate allows.',
          },
          WAKE: [
            REFUSED_FROM_OUTSIDE,
            {
              actions: 'wakeUp',
              description: 'The wake-up timer fired: deliver what is due.',
            },
          ],
          CLEARANCE: [
            REFUSED_FROM_OUTSIDE,
            { actions: 'deliverDue', description: "A store's answer arrived: deliver what is due." },
          ],
          ...storeNewsAnyState,
          STORE_STATUS: [
            REFUSED_FROM_OUTSIDE,
            {
              actions: ['reportStoreStatus', 'deliverDue'],
              description: 'News from the store: storeDown / storeUp, storeConflict, storeQuarantined.',
            },
          ],
          SET_TARGET: { actions: ['setTarget', 'deliverDue'], description: 'Switch targets, or unset to go idle.' },
          SET_RATE: { actions: ['setRate', 'deliverDue'], description: 'Replace a rate; the wake-up is re-armed.' },
          CANCEL: { actions: ['cancelMessage', 'deliverDue'], description: 'Take a waiting message out by its id.' },
          PAUSE: { actions: ['pause', 'deliverDue'], description: 'Deliver nothing until the given time (or RESUME).' },
          RESUME: { actions: ['resume', 'deliverDue'], description: 'End a pause and deliver what is due.' },
          SETTLED: { actions: ['settle', 'deliverDue'], description: 'A delivery finished: its slot may free up.' },
          ACTUAL_COST: { actions: ['settleActual', 'deliverDue'], description: 'Actual cost: less frees it at once.' },
          TRY_ACQUIRE: { actions: ['tryAcquire', 'deliverDue'], description: 'Take a permit now if one is free.' },
          LEASE: [
            REFUSED_FROM_OUTSIDE,
            { actions: ['grantLease', 'deliverDue'], description: 'Permits now; none while messages wait.' },
          ],
          LEASE_END: [
            REFUSED_FROM_OUTSIDE,
            { actions: ['endLease', 'deliverDue'], description: 'What the lease started counts as delivered.' },
          ],
          WORK_WAITING: [REFUSED_FROM_OUTSIDE, { description: 'Already active.' }],
          TARGET_STARTED: [REFUSED_FROM_OUTSIDE, { actions: 'deliverDue', description: 'The target has started.' }],
          ...unknownAnyState,
        },
      },
    },
  });
}

/** The machine with the library's own types, as the library's own code uses it. */
export type InternalMachine = ReturnType<typeof machineKnowing>;

/**
 * The machine with its own events, full context and the adapters' input (machine-types.ts): what the
 * adapters run (they hand it options already resolved) and restoreThrottler (it restores a built context).
 */
export const internalThrottlerMachine: InternalMachine = /* @__PURE__ */ machineKnowing(byValueResolved);

/** xstate-throttler/lean's `throttlerMachine`: the strategy is a value (`strategy: slidingWindow`), never a name. */
export const leanThrottlerMachine = /* @__PURE__ */ machineKnowing(
  byValueOnly,
) as unknown as PublicMachine<InternalMachine>;
