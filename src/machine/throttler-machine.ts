import { assign, type EventObject, setup } from 'xstate';
import { byValueOnly, byValueResolved, type StrategyLookup } from '../engine/options/strategy-option.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { acceptQueued, passesStraightThrough, passThrough } from './accept.js';
import { type ChartDescriber, type DescribableChart, describedChart } from './chart-descriptions.js';
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

/** The chart as it is without a describer, or described (chart-descriptions.ts); typed as the config it is given. */
function withTexts<Config extends Parameters<typeof throttlerSetup.createMachine>[0]>(
  config: Config,
  describe: ChartDescriber | undefined,
): Config {
  return describe === undefined ? config : (describe(config as unknown as DescribableChart) as unknown as Config);
}

/** A QUEUE in `active`: the two quiet paths first (quiet.ts), then the ordinary one. */
const queueWhileActive = [
  { guard: 'queuesQuietly', actions: 'queueQuietly' },
  { guard: 'passesAheadQuietly', actions: 'passAheadQuietly' },
  { actions: 'queueAndDeliver' },
] as const;

/**
 * The machine, whose input's strategy, when not a value, is read by `lookup`: by any name (the main
 * entry's), or by none (xstate-throttler/lean's: the strategy is a value, so the machine imports no policy).
 */
export function machineKnowing(lookup: StrategyLookup, describe?: ChartDescriber) {
  // Alike in both states: what the store tells that asks for no delivery, and an unknown event.
  const storeNewsAnyState = {
    STORE_SLOW: [REFUSED_FROM_OUTSIDE, { actions: 'reportStoreSlow' }],
    STORE_REWOUND: [REFUSED_FROM_OUTSIDE, { actions: 'reportStoreRewound' }],
  } as const;
  const unknownAnyState = {
    '*': { actions: 'refuseUnknownEvent' },
  } as const;
  return throttlerSetup.createMachine(
    withTexts(
      {
        id: 'throttler',
        context: ({ input, self }) => contextFromInput(input, self, lookup),
        initial: 'idle',
        states: {
          idle: {
            on: {
              QUEUE: [
                { guard: 'passesQuietly', actions: 'passThroughQuietly' },
                { guard: 'passesStraightThrough', actions: 'passThrough' },
                { actions: ['queueMessage', 'noticeWork'] },
              ],
              QUEUE_BATCH: { actions: ['queueMessage', 'noticeWork'] },
              WORK_WAITING: [
                REFUSED_FROM_OUTSIDE,
                { guard: 'shouldBeActive', target: 'active' },
                // Without this, a WORK_WAITING whose guard fails would fall through to the wildcard.
                {},
              ],
              SET_TARGET: { actions: ['setTarget', 'noticeWork'] },
              SET_RATE: { actions: ['setRate', 'noticeWork'] },
              CANCEL: { actions: ['cancelMessage', 'noticeWork'] },
              PAUSE: { actions: ['pause', 'noticeWork'] },
              RESUME: { actions: ['resume', 'noticeWork'] },
              SETTLED: { actions: ['settle', 'noticeWork'] },
              ACTUAL_COST: { actions: ['settleActual', 'noticeWork'] },
              TRY_ACQUIRE: { actions: ['tryAcquire', 'noticeWork'] },
              LEASE: [REFUSED_FROM_OUTSIDE, { actions: 'grantLease' }],
              LEASE_END: [REFUSED_FROM_OUTSIDE, { actions: 'endLease' }],
              WAKE: [REFUSED_FROM_OUTSIDE, {}],
              CLEARANCE: [REFUSED_FROM_OUTSIDE, {}],
              ...storeNewsAnyState,
              STORE_STATUS: [REFUSED_FROM_OUTSIDE, { actions: 'reportStoreStatus' }],
              DRAINED: [REFUSED_FROM_OUTSIDE, {}],
              TARGET_STARTED: [REFUSED_FROM_OUTSIDE, { actions: 'noticeWork' }],
              ...unknownAnyState,
            },
          },
          active: {
            entry: ['activatePolicies', 'deliverDue'],
            exit: 'disarmWakeUp',
            on: {
              DRAINED: [
                REFUSED_FROM_OUTSIDE,
                { guard: 'shouldBeIdle', target: 'idle' },
                // Without this, a DRAINED whose guard fails would fall through to the wildcard.
                {},
              ],
              QUEUE: queueWhileActive,
              QUEUE_BATCH: { actions: 'queueAndDeliver' },
              WAKE: [REFUSED_FROM_OUTSIDE, { actions: 'wakeUp' }],
              CLEARANCE: [REFUSED_FROM_OUTSIDE, { actions: 'deliverDue' }],
              ...storeNewsAnyState,
              STORE_STATUS: [REFUSED_FROM_OUTSIDE, { actions: ['reportStoreStatus', 'deliverDue'] }],
              SET_TARGET: { actions: ['setTarget', 'deliverDue'] },
              SET_RATE: { actions: ['setRate', 'deliverDue'] },
              CANCEL: { actions: ['cancelMessage', 'deliverDue'] },
              PAUSE: { actions: ['pause', 'deliverDue'] },
              RESUME: { actions: ['resume', 'deliverDue'] },
              SETTLED: { actions: ['settle', 'deliverDue'] },
              ACTUAL_COST: { actions: ['settleActual', 'deliverDue'] },
              TRY_ACQUIRE: { actions: ['tryAcquire', 'deliverDue'] },
              LEASE: [REFUSED_FROM_OUTSIDE, { actions: ['grantLease', 'deliverDue'] }],
              LEASE_END: [REFUSED_FROM_OUTSIDE, { actions: ['endLease', 'deliverDue'] }],
              WORK_WAITING: [REFUSED_FROM_OUTSIDE, {}],
              TARGET_STARTED: [REFUSED_FROM_OUTSIDE, { actions: 'deliverDue' }],
              ...unknownAnyState,
            },
          },
        },
      },
      describe,
    ),
  );
}

/** The machine with the library's own types, as the library's own code uses it. */
export type InternalMachine = ReturnType<typeof machineKnowing>;

/**
 * The machine with its own events, full context and the adapters' input (machine-types.ts): what the
 * adapters run (they hand it options already resolved) and restoreThrottler (it restores a built context).
 * With the chart's descriptions: the main entry's createThrottler, restoreThrottler and the operator run it.
 */
export const internalThrottlerMachine: InternalMachine = /* @__PURE__ */ machineKnowing(
  byValueResolved,
  describedChart,
);

/** The same without the chart's descriptions: what xstate-throttler/lean's createThrottler and restoreThrottler run. */
export const leanInternalMachine: InternalMachine = /* @__PURE__ */ machineKnowing(byValueResolved);

/**
 * xstate-throttler/lean's `throttlerMachine`: the strategy is a value (`strategy: slidingWindow`), never a name;
 * the chart carries no descriptions (chart-descriptions.ts).
 */
export const leanThrottlerMachine = /* @__PURE__ */ machineKnowing(
  byValueOnly,
) as unknown as PublicMachine<InternalMachine>;
