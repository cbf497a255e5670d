import fc from 'fast-check';
import { expect } from 'vitest';
import { createActor, type EventObject } from 'xstate';
import { type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import {
  type Arrival,
  type Delivery,
  goesBefore,
  type OracleRate,
  type RateConfig,
  SCENARIO_MAX_PRIORITY_WAIT,
} from './oracle.js';
import { createRecorder } from './recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from './virtual-time.js';

/**
 * Random rates and arrival schedules for the property tests, and a driver that
 * sends a schedule through the real machine in virtual time. Every time is a
 * whole millisecond: the machine rounds its wake-up delays up to whole ms, so
 * with integer arrivals and intervals the expected times are exact.
 */

export const CHANNEL_NAMES = ['alpha', 'beta', 'gamma'] as const;

const rateArbitrary: fc.Arbitrary<OracleRate> = fc.record({
  limit: fc.integer({ min: 1, max: 5 }),
  interval: fc.integer({ min: 1, max: 2000 }),
});

const ratesArbitrary = fc.array(rateArbitrary, { minLength: 1, maxLength: 2 });

/** 1-2 overall rates, and 0-3 channels with 1-2 rates each. */
export const rateConfigArbitrary: fc.Arbitrary<RateConfig> = fc
  .tuple(
    ratesArbitrary,
    fc.integer({ min: 0, max: CHANNEL_NAMES.length }),
    fc.array(ratesArbitrary, { minLength: 3, maxLength: 3 }),
  )
  .map(([overall, channelCount, channelRates]) => ({
    overall,
    channels: Object.fromEntries(
      CHANNEL_NAMES.slice(0, channelCount).map((name, index) => [name, channelRates[index] as OracleRate[]]),
    ),
  }));

/** The largest cost a message on `channel` may have: the smallest limit that applies to it. */
export function largestCostFor(config: RateConfig, channel: string | undefined): number {
  const applicable = [...config.overall, ...(channel === undefined ? [] : (config.channels[channel] ?? []))];
  return Math.min(...applicable.map((rate) => rate.limit));
}

/**
 * Mostly bursts (several messages in the same ms or a few ms apart) with some
 * pauses long enough for windows to empty.
 */
const gapArbitrary = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 20 }),
  fc.integer({ min: 0, max: 500 }),
  fc.integer({ min: 0, max: 2500 }),
);

/** Half the messages name a priority (0-9, often one of a few, so that ties happen too), the rest take the default. */
export const priorityArbitrary: fc.Arbitrary<number | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(0, 5, 9),
  fc.integer({ min: 0, max: 9 }),
);

/** A third of the messages have a deadline, as `maxWait` or as an absolute `deadline` (sometimes already past). */
const deadlineArbitrary = fc.oneof(
  { weight: 2, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ maxWait: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })) }) },
  { weight: 1, arbitrary: fc.record({ after: fc.integer({ min: -50, max: 3000 }) }) },
);

/** What else a generated message may carry besides its channel and cost. */
export interface ArrivalExtras {
  /** Random priorities (default: none, every message at the default). */
  priorities?: boolean;
  /** Random deadlines and maxWaits (default: none). */
  deadlines?: boolean;
}

/** 1-25 messages for these rates: integer gaps, a channel of the config or none, a cost that fits. */
export function arrivalsArbitrary(
  config: RateConfig,
  maxLength = 25,
  { priorities = false, deadlines = false }: ArrivalExtras = {},
): fc.Arbitrary<Arrival[]> {
  const channelArbitrary = fc.constantFrom<string | undefined>(undefined, ...Object.keys(config.channels));
  const messageArbitrary = fc
    .tuple(
      gapArbitrary,
      channelArbitrary,
      fc.integer({ min: 1, max: 5 }),
      priorities ? priorityArbitrary : fc.constant(undefined),
      deadlines ? deadlineArbitrary : fc.constant({}),
    )
    .map(([gap, channel, wantedCost, priority, deadline]) => ({
      gap,
      channel,
      cost: Math.min(wantedCost, largestCostFor(config, channel)),
      priority,
      deadline: deadline as { maxWait?: number; after?: number },
    }));
  return fc.array(messageArbitrary, { minLength: 1, maxLength }).map((messages) => {
    let at = 0;
    return messages.map(({ gap, channel, cost, priority, deadline }, id) => {
      at += gap;
      const arrival: Arrival = { id, at, cost, channel, priority };
      if (deadline.maxWait !== undefined) return { ...arrival, maxWait: deadline.maxWait };
      // A time on the throttler's clock, which starts at 0 with the run: never negative.
      if (deadline.after !== undefined) return { ...arrival, deadline: Math.max(0, at + deadline.after) };
      return arrival;
    });
  });
}

/** How queued messages may overtake each other: never, or only across channels. */
export type Ordering = 'fifo' | 'per-channel';

export const orderingArbitrary = fc.constantFrom<Ordering>('fifo', 'per-channel');

/**
 * How arrivals reach the machine: one QUEUE event each, or every group that
 * arrives in the same millisecond as one QUEUE_BATCH (which must deliver the same),
 * or one QUEUE each with nobody listening to `delivered` (nor to every event), so
 * that the machine's quiet paths (src/machine/quiet.ts) are open, as for most users.
 */
export type SendAs = 'events' | 'batches' | 'unheard';

export const sendAsArbitrary = fc.constantFrom<SendAs>('events', 'batches', 'unheard');

/** What the driver hears of a throttler whose deliveries nobody listens to: everything else. */
const EMITTED_BUT_DELIVERED = ['activated', 'idled', 'rejected', 'dropped', 'targetLost', 'invalidEvent'] as const;

/** Rates, an ordering, arrivals that fit them (with priorities), and how they are sent. */
export const scenarioArbitrary = fc
  .tuple(rateConfigArbitrary, orderingArbitrary, sendAsArbitrary)
  .chain(([config, ordering, sendAs]) =>
    arrivalsArbitrary(config, 25, { priorities: true }).map((arrivals) => ({ config, ordering, arrivals, sendAs })),
  );

/** Rates as the machine takes them. */
export function machineRates(config: RateConfig): Pick<ThrottlerInput, 'rate' | 'channels'> {
  const channels = Object.fromEntries(
    Object.entries(config.channels).map(([name, rates]) => [name, rates.map((rate) => ({ ...rate }))]),
  );
  return { rate: config.overall.map((rate) => ({ ...rate })), channels };
}

/** A message that says which arrival it is, so deliveries can be matched to arrivals. */
export interface TaggedMessage extends EventObject {
  type: 'tagged';
  id: number;
}

/** A delivery as the target saw it, with the arrival it was. */
export interface ObservedDelivery extends Delivery {
  readonly id: number;
}

/** A throttler driven through an arrival schedule in virtual time. */
export interface DrivenThrottler {
  readonly actor: ReturnType<typeof createActor<typeof throttlerMachine>>;
  /** What the target received so far, in order, with the arrival's cost and channel. */
  deliveries(): ObservedDelivery[];
  /** Everything the throttler emitted, in order. */
  readonly emitted: ThrottlerEmitted[];
  /** What was dropped, when (virtual time) and why. */
  readonly dropped: Array<{ id: number; at: number; reason: string }>;
  /** Moves virtual time forward to `at` (a time since the run started). */
  advanceTo(at: number): void;
  /** The virtual time since the run started. */
  elapsed(): number;
}

/**
 * Starts a throttler with a recording target at virtual time 0, lets `prepare`
 * send it anything first, and sends each arrival at its time, with its priority
 * and deadline if it has them (maxPriorityWait: SCENARIO_MAX_PRIORITY_WAIT unless
 * the input says). Virtual time is reset for every run, so each fast-check run
 * starts from 0 with no timer left over from the one before.
 */
export function driveSchedule(
  input: Omit<ThrottlerInput, 'target'>,
  arrivals: readonly Arrival[],
  prepare?: (actor: DrivenThrottler['actor']) => void,
  sendAs: SendAs = 'events',
): DrivenThrottler {
  restoreRealTime();
  useVirtualTime();
  const target = createRecorder<TaggedMessage>();
  const actor = createActor(throttlerMachine, {
    input: { maxPriorityWait: SCENARIO_MAX_PRIORITY_WAIT, ...input, target: target.ref },
  });
  const emitted: ThrottlerEmitted[] = [];
  const dropped: DrivenThrottler['dropped'] = [];
  const hear = (event: unknown) => emitted.push(event as ThrottlerEmitted);
  if (sendAs === 'unheard') for (const type of EMITTED_BUT_DELIVERED) actor.on(type, hear);
  else actor.on('*', hear);
  actor.on('dropped', ({ message, reason }) => dropped.push({ id: message.id as number, at: now(), reason }));
  actor.start();
  prepare?.(actor);
  const byId = new Map(arrivals.map((arrival) => [arrival.id, arrival]));
  let clock = 0;
  const advanceTo = (at: number): void => {
    if (at > clock) advance(at - clock);
    clock = Math.max(clock, at);
  };
  const entry = ({ id, channel, cost, priority, deadline, maxWait }: Arrival) => ({
    message: { type: 'tagged', id } as TaggedMessage,
    channel,
    cost,
    ...(priority === undefined ? {} : { priority }),
    ...(deadline === undefined ? {} : { deadline }),
    ...(maxWait === undefined ? {} : { maxWait }),
  });
  for (let index = 0; index < arrivals.length; ) {
    const first = arrivals[index] as Arrival;
    advanceTo(first.at);
    if (sendAs !== 'batches') {
      actor.send({ type: 'QUEUE', ...entry(first) });
      index += 1;
      continue;
    }
    const sameTime: Arrival[] = [];
    while (index < arrivals.length && (arrivals[index] as Arrival).at === first.at)
      sameTime.push(arrivals[index++] as Arrival);
    actor.send({ type: 'QUEUE_BATCH', messages: sameTime.map(entry) });
  }
  return {
    actor,
    emitted,
    dropped,
    advanceTo,
    elapsed: () => clock,
    deliveries: () =>
      target.received.map(({ message, at }) => {
        const arrival = byId.get(message.id);
        if (arrival === undefined) throw new Error(`the target received a message never queued: ${message.id}`);
        return { id: message.id, at, cost: arrival.cost, channel: arrival.channel };
      }),
  };
}

/** Advances in steps of `step` ms until nothing waits, at most `maxSteps` times. */
export function drain(driven: DrivenThrottler, step: number, maxSteps = 10_000): void {
  for (let i = 0; i < maxSteps && driven.actor.getSnapshot().context.counts.queued > 0; i++) {
    driven.advanceTo(driven.elapsed() + step);
  }
}

/** The ids in the order they went, per channel (undefined: no channel). */
export function idsByChannel(deliveries: readonly { id: number; channel: string | undefined }[]) {
  const byChannel = new Map<string | undefined, number[]>();
  for (const { id, channel } of deliveries) {
    const ids = byChannel.get(channel) ?? [];
    ids.push(id);
    byChannel.set(channel, ids);
  }
  return byChannel;
}

/** The longest interval among the rates (how long after a delivery it still counts). */
export function longestInterval(config: RateConfig): number {
  const all = [...config.overall, ...Object.values(config.channels).flat()];
  return Math.max(...all.map((rate) => rate.interval));
}

/**
 * Sends the arrivals through, waits until nothing is queued, then one longest
 * interval more (so the last delivery's periods and windows have ended).
 */
export function driveToRest(
  input: Omit<ThrottlerInput, 'target'>,
  config: RateConfig,
  arrivals: readonly Arrival[],
  sendAs: SendAs = 'events',
): DrivenThrottler {
  const driven = driveSchedule(input, arrivals, undefined, sendAs);
  drain(driven, longestInterval(config));
  driven.advanceTo(driven.elapsed() + longestInterval(config));
  return driven;
}

/** Every arrival was delivered, and exactly once. */
export function expectEachDeliveredOnce(deliveries: readonly ObservedDelivery[], arrivals: readonly Arrival[]): void {
  const deliveredIds = deliveries.map((delivery) => delivery.id);
  expect([...deliveredIds].sort((a, b) => a - b)).toEqual(arrivals.map((arrival) => arrival.id));
}

/**
 * Deliveries kept the order: globally with 'fifo', within each channel with 'per-channel'. Without
 * priorities that is arrival order. With them, a message that arrived later went first only if it
 * ranks lower (oracle.ts, rankOf), so never with an equal priority, and never one that arrived
 * maxPriorityWait or more later: a pairwise check, since which messages waited together depends on
 * the strategy.
 */
export function expectArrivalOrder(
  deliveries: readonly ObservedDelivery[],
  arrivals: readonly Arrival[],
  ordering: Ordering,
  maxPriorityWait = SCENARIO_MAX_PRIORITY_WAIT,
): void {
  if (arrivals.every((arrival) => arrival.priority === undefined)) {
    if (ordering === 'fifo')
      expect(deliveries.map((delivery) => delivery.id)).toEqual(arrivals.map((arrival) => arrival.id));
    else expect(idsByChannel(deliveries)).toEqual(idsByChannel(arrivals));
    return;
  }
  expect(overtakings(deliveries, arrivals, ordering, maxPriorityWait)).toEqual([]);
}

/**
 * Every pair where a message that arrived later was delivered before one that arrived earlier
 * (in the same channel with 'per-channel') and does not rank lower: none when the order holds.
 */
export function overtakings(
  deliveries: readonly { id: number }[],
  arrivals: readonly Arrival[],
  ordering: Ordering,
  maxPriorityWait = SCENARIO_MAX_PRIORITY_WAIT,
): Array<{ overtaken: Arrival; by: Arrival }> {
  const byId = new Map(arrivals.map((arrival) => [arrival.id, arrival]));
  const found: Array<{ overtaken: Arrival; by: Arrival }> = [];
  const order = deliveries.map(({ id }) => byId.get(id) as Arrival);
  for (const [index, first] of order.entries()) {
    for (const later of order.slice(index + 1)) {
      if (later.id > first.id) continue;
      if (ordering === 'per-channel' && later.channel !== first.channel) continue;
      // `first` arrived after `later` and went before it: only by ranking lower.
      if (!goesBefore(first, later, maxPriorityWait)) found.push({ overtaken: later, by: first });
    }
  }
  return found;
}
