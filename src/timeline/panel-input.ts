import { ThrottlerOptionError } from '../rate/index.js';
import { type BusiestWindow, byChannel, measureWindows } from './busiest-window.js';
import { type Recorded, readEvents, readRates, type TimelineEvent, type TimelineRates } from './events.js';
import { arrangeLanes, type Lane } from './lanes.js';

/** One throttler's recording: its events, the rates it ran under, and a title. */
export interface TimelineInput extends TimelineRates {
  readonly events: readonly TimelineEvent[];
  /** Shown above the panel, e.g. `strategy "timer", rate 3/1s`. */
  readonly title?: string | undefined;
}

/** A panel's input, checked. */
export interface Panel {
  readonly title: string | undefined;
  readonly recorded: Recorded;
  readonly windows: BusiestWindow[];
  readonly lanes: Lane[];
  readonly start: number;
  readonly end: number;
}

/** Reads and checks one panel; every error names the field under `path`. */
export function readPanel(input: unknown, path: string): Panel {
  if (typeof input !== 'object' || input === null) {
    throw new ThrottlerOptionError(path || 'input', 'an object { events, rate, channels, title }', input);
  }
  const fields = input as TimelineInput;
  const prefix = path ? `${path}.` : '';
  if (fields.title !== undefined && typeof fields.title !== 'string') {
    throw new ThrottlerOptionError(`${prefix}title`, 'a string', fields.title);
  }
  if (fields.dimension !== undefined && (typeof fields.dimension !== 'string' || fields.dimension === '')) {
    throw new ThrottlerOptionError(`${prefix}dimension`, 'a dimension name (a non-empty string)', fields.dimension);
  }
  const recorded = readEvents(fields.events, `${prefix}events`, fields.dimension);
  const rates = readRates(fields, path);
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const delivery of recorded.deliveries) start = Math.min(start, delivery.queuedAt);
  const times = [recorded.deliveries.at(-1)?.at, ...[recorded.activity, recorded.dropTimes].flatMap(ends)];
  for (const time of times) {
    if (time === undefined) continue;
    start = Math.min(start, time);
    end = Math.max(end, time);
  }
  if (start > end) start = end = 0;
  return {
    title: fields.title,
    recorded,
    windows: measureWindows(recorded, rates),
    lanes: arrangeLanes(byChannel(recorded.deliveries), rates),
    start,
    end,
  };
}

function ends(list: ReadonlyArray<number | { at: number }>): Array<number | undefined> {
  const time = (item: number | { at: number } | undefined) => (typeof item === 'object' ? item.at : item);
  return [time(list[0]), time(list.at(-1))];
}

/**
 * For recorded events and the rates they were throttled by: the busiest window of each rate and its
 * count, what the timeline draws. A `sliding-window` throttler never shows a count above the limit;
 * `timer` can reach twice it. Counted at delivery time (`at`), as `countUntil: 'start'` counts.
 * Throws a ThrottlerOptionError naming the event and field, or the rate, that is wrong.
 */
export function busiestWindows(input: TimelineRates & { events: readonly TimelineEvent[] }): BusiestWindow[] {
  return readPanel(input, '').windows;
}
