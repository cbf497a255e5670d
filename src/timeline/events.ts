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
      cost: number;
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
  | { type: 'rejected' | 'targetLost' | 'targetNotStarted' | 'invalidEvent' | 'queued' | 'dequeued' };

/** The rates to measure the deliveries against: the same forms as the machine's `rate` and `channels`. */
export interface TimelineRates {
  /** The overall rate(s): `'3/1s'`, `{ limit, interval }` or a list. Without it no overall window is drawn. */
  rate?: RatesInput | undefined;
  /** Per-channel rates: `{ search: '2/1s' }`. */
  channels?: Record<string, RatesInput> | undefined;
}

/** One delivery, checked. */
export interface Delivery {
  readonly at: number;
  readonly queuedAt: number;
  readonly cost: number;
  readonly channel: string | undefined;
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
  'queued',
  'dequeued',
]);

function finiteTime(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ThrottlerOptionError(field, 'a finite time in milliseconds', value);
  }
  return value;
}

function checkDelivery(event: Record<string, unknown>, path: string): Delivery {
  const at = finiteTime(event.at, `${path}.at`);
  const queuedAt = finiteTime(event.queuedAt, `${path}.queuedAt`);
  if (queuedAt > at) {
    throw new ThrottlerOptionError(`${path}.queuedAt`, `no later than at (${at})`, queuedAt);
  }
  const { cost, channel } = event;
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost <= 0) {
    throw new ThrottlerOptionError(`${path}.cost`, 'a positive integer', cost);
  }
  if (channel !== undefined && typeof channel !== 'string') {
    throw new ThrottlerOptionError(`${path}.channel`, 'a string or undefined', channel);
  }
  return { at, queuedAt, cost, channel };
}

const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at;

/** Checks every event; each error names the event by its index and the field. O(n log n). */
export function readEvents(events: unknown, path: string): Recorded {
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
        deliveries.push(checkDelivery(fields, at));
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
