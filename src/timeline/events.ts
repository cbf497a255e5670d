import { parseRates, type Rate, type RatesInput, ThrottlerOptionError } from '../rate/index.js';

/**
 * The events a timeline reads: what the throttler emits about time (`actor.on(type, ...)`), so
 * recorded `ThrottlerEmitted` events can be passed as they are. `dropped` carries no time when
 * the throttler emits it; {@link recordTimeline} adds `at`, and a drop without it is counted but
 * not placed.
 */
export type TimelineEvent =
  | {
      type: 'delivered';
      channel?: string | undefined;
      /** A number, or with rates in dimensions a map of dimension to cost (`{ requests: 1, tokens: 800 }`). */
      cost: number | { readonly [dimension: string]: number };
      /** When it was sent, on the throttler's time source. */
      at: number;
      /** When it was queued; the gap to `at` is drawn as waiting. */
      queuedAt: number;
      message?: unknown;
    }
  | { type: 'dropped'; at?: number | undefined; reason?: string | undefined; message?: unknown }
  | { type: 'activated'; at: number }
  | { type: 'idled'; at: number }
  /** The throttler's other events are accepted and ignored, so `actor.on('*', ...)` can feed a timeline. */
  | {
      type: 'rejected' | 'targetLost' | 'targetNotStarted' | 'invalidEvent' | 'queued' | 'dequeued' | 'strategyError';
    };

/** The rates to measure the deliveries against: the same forms as the machine's `rate` and `channels`. */
export interface TimelineRates {
  /** The overall rate(s): `'3/1s'`, `{ limit, interval }` or a list. Without it no overall window is drawn. */
  rate?: RatesInput | undefined;
  /** Per-channel rates: `{ search: '2/1s' }`. */
  channels?: Record<string, RatesInput> | undefined;
  /**
   * With costs in dimensions, the dimension the marks draw (their heights, the lanes' totals), e.g.
   * `'tokens'`; without it a cost map is drawn as the sum of its dimensions. A rate in a dimension always
   * measures its windows in that dimension's cost.
   */
  dimension?: string | undefined;
}

/** One delivery, checked. */
export interface Delivery {
  readonly at: number;
  readonly queuedAt: number;
  /** What the marks draw: the number, or of a cost map its drawn dimension's (or every one's, summed). */
  readonly cost: number;
  /** A cost map, by dimension (a Map: any name is data); undefined for a number. */
  readonly costs: ReadonlyMap<string, number> | undefined;
  readonly channel: string | undefined;
}

/** A delivery's cost in `dimension`: a number is that cost in every dimension, a map's missing one is 0. */
export function costIn(delivery: Delivery, dimension: string | undefined): number {
  if (delivery.costs === undefined || dimension === undefined) return delivery.cost;
  return delivery.costs.get(dimension) ?? 0;
}

/** A change between idle and active. */
export interface ActivityChange {
  readonly at: number;
  readonly active: boolean;
}

/** The events, checked and sorted by time. */
export interface Recorded {
  readonly deliveries: Delivery[];
  /** Times of drops that carry one, ascending. */
  readonly dropTimes: number[];
  /** Drops without a time. */
  readonly undatedDrops: number;
  readonly activity: ActivityChange[];
}

const IGNORED: ReadonlySet<string> = new Set([
  'rejected',
  'targetLost',
  'targetNotStarted',
  'invalidEvent',
  'strategyError',
  'queued',
  'dequeued',
]);

function finiteTime(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ThrottlerOptionError(field, 'a finite time in milliseconds', value);
  }
  return value;
}

function checkDelivery(event: Record<string, unknown>, path: string, drawnDimension: string | undefined): Delivery {
  const at = finiteTime(event.at, `${path}.at`);
  const queuedAt = finiteTime(event.queuedAt, `${path}.queuedAt`);
  if (queuedAt > at) {
    throw new ThrottlerOptionError(`${path}.queuedAt`, `no later than at (${at})`, queuedAt);
  }
  const { cost, channel } = event;
  if (channel !== undefined && typeof channel !== 'string') {
    throw new ThrottlerOptionError(`${path}.channel`, 'a string or undefined', channel);
  }
  if (typeof cost === 'object' && cost !== null && !Array.isArray(cost)) {
    const costs = costMap(cost, `${path}.cost`);
    const drawn = drawnDimension === undefined ? sum(costs) : (costs.get(drawnDimension) ?? 0);
    return { at, queuedAt, cost: drawn, costs, channel };
  }
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost <= 0) {
    throw new ThrottlerOptionError(`${path}.cost`, 'a positive integer, or a map of dimension to cost', cost);
  }
  return { at, queuedAt, cost, costs: undefined, channel };
}

/** A cost map checked as the machine emits it: non-negative integers, at least one above 0. */
function costMap(cost: object, path: string): Map<string, number> {
  const costs = new Map<string, number>();
  for (const name of Object.keys(cost)) {
    const value = (cost as Record<string, unknown>)[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new ThrottlerOptionError(`${path}.${name}`, 'a non-negative integer', value);
    }
    costs.set(name, value);
  }
  if (sum(costs) === 0) throw new ThrottlerOptionError(path, 'a cost with at least one dimension above 0', cost);
  return costs;
}

function sum(costs: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const value of costs.values()) total += value;
  return total;
}

const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at;

/**
 * Checks every event; each error names the event by its index and the field. A cost map is drawn as its
 * `drawnDimension`'s cost, or the sum of its dimensions without one. O(n log n).
 */
export function readEvents(events: unknown, path: string, drawnDimension?: string): Recorded {
  if (!Array.isArray(events)) {
    throw new ThrottlerOptionError(path, 'an array of recorded events', events);
  }
  const deliveries: Delivery[] = [];
  const dropTimes: number[] = [];
  const activity: ActivityChange[] = [];
  let undatedDrops = 0;
  for (let index = 0; index < events.length; index++) {
    const event: unknown = events[index];
    const at = `${path}[${index}]`;
    if (typeof event !== 'object' || event === null) {
      throw new ThrottlerOptionError(at, 'an event object with a type', event);
    }
    const fields = event as Record<string, unknown>;
    switch (fields.type) {
      case 'delivered':
        deliveries.push(checkDelivery(fields, at, drawnDimension));
        break;
      case 'dropped':
        if (fields.at === undefined) undatedDrops += 1;
        else dropTimes.push(finiteTime(fields.at, `${at}.at`));
        break;
      case 'activated':
      case 'idled':
        activity.push({ at: finiteTime(fields.at, `${at}.at`), active: fields.type === 'activated' });
        break;
      default:
        if (typeof fields.type === 'string' && IGNORED.has(fields.type)) break;
        throw new ThrottlerOptionError(
          `${at}.type`,
          '"delivered", "dropped", "activated" or "idled" (or another throttler event, which is ignored)',
          fields.type,
        );
    }
  }
  // Sorted already when recorded from one throttler; sort is stable and cheap on sorted input.
  deliveries.sort(byTime);
  activity.sort(byTime);
  dropTimes.sort((a, b) => a - b);
  return { deliveries, dropTimes, undatedDrops, activity };
}

/** The parsed rates: overall, and per channel by name (a Map, so any name is only data). */
export interface ParsedRates {
  readonly overall: Rate[];
  readonly channels: ReadonlyMap<string, Rate[]>;
}

/** Parses the rates like the machine's options do, with errors naming `rate` or `channels.<name>`. */
export function readRates(rates: TimelineRates, path: string): ParsedRates {
  const prefix = path ? `${path}.` : '';
  const overall = rates.rate === undefined ? [] : parseRates(rates.rate, `${prefix}rate`);
  const channels = new Map<string, Rate[]>();
  const given = rates.channels;
  if (given !== undefined) {
    if (typeof given !== 'object' || given === null || Array.isArray(given)) {
      throw new ThrottlerOptionError(`${prefix}channels`, 'an object of channel name to rate', given);
    }
    for (const [name, channelRate] of Object.entries(given)) {
      channels.set(name, parseRates(channelRate, `${prefix}channels.${name}`));
    }
  }
  return { overall, channels };
}
