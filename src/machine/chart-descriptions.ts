/**
 * The chart's descriptions (what the Stately visualizer and inspector show for the machine, each state and
 * each transition), kept apart from the chart (throttler-machine.ts) so that only the entries that show a
 * chart bundle them: the main entry's machines and its createThrottler, restoreThrottler and the operator.
 * xstate-throttler/lean's machines carry none (docs/size.md): about 0.9 kB gzipped an app never shows.
 */

/** An event's transitions in order; the machine's own refusal (REFUSED_FROM_OUTSIDE) keeps its own text. */
type EventTexts = string | readonly string[];

/** The texts of the chart: its own, and each state's with its events'. */
export interface ChartTexts {
  readonly description: string;
  readonly states: Readonly<
    Record<string, { readonly description: string; readonly on: Readonly<Record<string, EventTexts>> }>
  >;
}

// Alike in both states: what the store tells, and an unknown event. No spread of a shared object: a bundler
// would keep the texts for its getters' sake, in the entries that show none.
const STORE_NEWS = 'News from the store: storeDown / storeUp, storeConflict, storeQuarantined.';
const STORE_SLOW = "The store's link is slower than its grace: storeSlow.";
const STORE_REWOUND = 'Grants given back or moved: storeGrantsRewound.';
const UNKNOWN_EVENT = 'An unknown event type: reported as invalidEvent.';

export const CHART_TEXTS: ChartTexts = {
  description: 'Queues messages and forwards them to a target actor no faster than the rate allows.',
  states: {
    idle: {
      description: 'No target, or nothing waiting. No timer is pending.',
      on: {
        STORE_SLOW,
        STORE_REWOUND,
        '*': UNKNOWN_EVENT,
        QUEUE: [
          'As below, with nothing to tell anyone: the snapshot is all that changes.',
          'The rate allows it now and nothing waits: deliver at once and stay idle.',
          'Queue a message; with a target the throttler becomes active to send it.',
        ],
        QUEUE_BATCH: 'Queue several messages in order; with a target the throttler becomes active to send them.',
        WORK_WAITING: [
          'Raised here when a target is set and a message waits.',
          'No target, or nothing waits: stay idle.',
        ],
        SET_TARGET: 'Set (or unset) the actor that receives the messages.',
        SET_RATE: "Replace the overall rate, or one channel's.",
        CANCEL: 'Take a waiting message out of the queue by its id.',
        PAUSE: 'Deliver nothing until the given time (or until RESUME).',
        RESUME: 'End a pause.',
        SETTLED: 'A delivery finished on the receiving side.',
        ACTUAL_COST: "A delivery's actual cost, known now.",
        TRY_ACQUIRE: 'Take a permit now if one is free (with the timer strategy its voucher period starts).',
        LEASE: 'Permits valid now, for a sender that starts the work itself.',
        LEASE_END: 'The lease is spent: what it started counts as delivered.',
        WAKE: 'A wake-up left over from `active`: nothing is due in idle.',
        CLEARANCE: "A store's answer while idle: nothing waits for it.",
        STORE_STATUS: STORE_NEWS,
        DRAINED: 'Already idle.',
        TARGET_STARTED: 'The target set before it started has started: go on.',
      },
    },
    active: {
      description: 'Delivering: a target is set and messages wait. One wake-up timer.',
      on: {
        STORE_SLOW,
        STORE_REWOUND,
        '*': UNKNOWN_EVENT,
        DRAINED: [
          'Raised here when nothing waits, or the target is gone.',
          'Messages still wait for the target: stay active.',
        ],
        QUEUE: [
          'It joins the queue behind a head that waits for the armed wake-up: nothing else changes.',
          'Nothing waits on its channel and the rate allows it now: sent, the wake-up left armed.',
          'Queue a message and deliver it if the rate allows.',
        ],
        QUEUE_BATCH: 'Queue several messages in order and deliver what the rate allows.',
        WAKE: 'The wake-up timer fired: deliver what is due.',
        CLEARANCE: "A store's answer arrived: deliver what is due.",
        STORE_STATUS: STORE_NEWS,
        SET_TARGET: 'Switch targets, or unset to go idle.',
        SET_RATE: 'Replace a rate; the wake-up is re-armed.',
        CANCEL: 'Take a waiting message out by its id.',
        PAUSE: 'Deliver nothing until the given time (or RESUME).',
        RESUME: 'End a pause and deliver what is due.',
        SETTLED: 'A delivery finished: its slot may free up.',
        ACTUAL_COST: 'Actual cost: less frees it at once.',
        TRY_ACQUIRE: 'Take a permit now if one is free.',
        LEASE: 'Permits now; none while messages wait.',
        LEASE_END: 'What the lease started counts as delivered.',
        WORK_WAITING: 'Already active.',
        TARGET_STARTED: 'The target has started.',
      },
    },
  },
};

type Transition = Readonly<Record<string, unknown>>;
/** A chart's config as describeChart reads it: its states, each with its events' transitions. */
export interface DescribableChart {
  readonly states: Readonly<
    Record<string, { readonly on: Readonly<Record<string, Transition | readonly Transition[]>> }>
  >;
}

/** An event's transitions with its texts, in order: each without a description of its own takes the next. */
function describeTransitions(given: Transition | readonly Transition[], texts: EventTexts) {
  const queue = typeof texts === 'string' ? [texts] : [...texts];
  const described = (transition: Transition) =>
    transition.description === undefined ? { ...transition, description: queue.shift() } : transition;
  return Array.isArray(given) ? given.map(described) : described(given as Transition);
}

/**
 * The chart's config with `texts` on it: a copy (the transitions it shares with other charts are left as
 * they are). Built once per machine, as the module loads.
 */
export function describeChart(config: DescribableChart, texts: ChartTexts): DescribableChart & { description: string } {
  const states = Object.fromEntries(
    Object.entries(config.states).map(([name, state]) => {
      const own = texts.states[name];
      if (own === undefined) return [name, state];
      const on = Object.fromEntries(
        Object.entries(state.on).map(([event, given]) => {
          const eventTexts = own.on[event];
          return [event, eventTexts === undefined ? given : describeTransitions(given, eventTexts)];
        }),
      );
      return [name, { ...state, description: own.description, on }];
    }),
  );
  return { ...config, description: texts.description, states };
}

/** What puts the descriptions on a chart: passed to machineKnowing by the main entry's machines only. */
export type ChartDescriber = (config: DescribableChart) => DescribableChart;

/**
 * The chart with CHART_TEXTS on it. A function the main entry's machines are given, so that the lean entry's,
 * given none, bundle neither the texts nor the walk that puts them on.
 */
export function describedChart(config: DescribableChart): DescribableChart {
  return describeChart(config, CHART_TEXTS);
}
