/**
 * The timelines of a replay's configurations, side by side: a panel per configuration, drawn from the
 * decisions `replay` and `compare` (xstate-throttler/replay) hand to `onDecision`. It lives in the timeline
 * entry, so a replay that draws nothing never loads the renderer; it imports nothing from the replay entry
 * either (a decision is read by its fields).
 */
import type { RatesInput } from '../rate/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import type { TimelineEvent } from './events.js';
import type { TimelineInput } from './panel-input.js';
import { renderTimelines, type TimelineOptions } from './render.js';

/** What a panel needs of a configuration: its name and the rates to measure its windows against. */
export interface ReplayedConfiguration {
  readonly name?: string | undefined;
  readonly rate?: RatesInput | undefined;
  readonly channels?: Record<string, RatesInput> | ReadonlyMap<string, RatesInput> | undefined;
  /** A limit per key: each key seen gets a window of this rate (the first 16 keys a lane of their own). */
  readonly keys?: { readonly rate: RatesInput } | undefined;
}

/** An arrival's fate as a replay's `onDecision` hears it (the replay entry's `ReplayDecision`). */
export interface ReplayedDecision {
  readonly t: number;
  readonly at: number;
  readonly channel: string | undefined;
  readonly cost?: number | { readonly [dimension: string]: number } | undefined;
  readonly sent?: number | undefined;
  readonly dropped?: string | undefined;
  readonly rejected?: string | undefined;
}

/** Collects a replay's decisions per configuration, and draws them. */
export interface ReplayTimelines {
  /** Pass as the replay's `onDecision` (`compare(recording, configurations, { onDecision: timelines.onDecision })`). */
  readonly onDecision: (decision: ReplayedDecision, configuration: number) => void;
  /** Each configuration's panel: its events (a drop or a refusal is drawn as dropped), rates and title. */
  panels(): TimelineInput[];
  /** The panels side by side (`layout: 'columns'`, unless given), on one time scale ({@link renderTimelines}). */
  svg(options?: TimelineOptions): string;
}

function ratesOf(
  configuration: ReplayedConfiguration,
  channelsSeen: ReadonlySet<string>,
): Record<string, RatesInput> | undefined {
  const given = configuration.channels;
  const rates: Record<string, RatesInput> = {};
  const keyRate = configuration.keys?.rate;
  if (keyRate !== undefined) for (const channel of channelsSeen) rates[channel] = keyRate;
  if (given instanceof Map) for (const [name, rate] of given) rates[name] = rate;
  else if (given !== undefined) Object.assign(rates, given);
  return Object.keys(rates).length === 0 ? undefined : rates;
}

function eventOf(decision: ReplayedDecision): TimelineEvent {
  if (decision.sent === undefined) return { type: 'dropped', at: decision.at, reason: decision.dropped };
  return {
    type: 'delivered',
    at: decision.sent,
    queuedAt: decision.t,
    channel: decision.channel,
    cost: decision.cost ?? 1,
  };
}

/**
 * One timeline per configuration (at most 12), filled by the replay's `onDecision`: pass the same
 * configurations, in the same order, as to `compare`. Keeps an event per decision (memory grows with the
 * recording, unlike the replay's), so draw a recording of at most a few million arrivals; the picture's
 * size is bounded by its width, not by the events.
 */
export function replayTimelines(configurations: readonly ReplayedConfiguration[]): ReplayTimelines {
  if (!Array.isArray(configurations) || configurations.length === 0 || configurations.length > 12) {
    throw new ThrottlerOptionError('configurations', 'an array of 1 to 12 configurations', configurations);
  }
  const events: TimelineEvent[][] = configurations.map(() => []);
  const channelsSeen = configurations.map(() => new Set<string>());
  const onDecision = (decision: ReplayedDecision, configuration: number): void => {
    const list = events[configuration];
    if (list === undefined) {
      throw new ThrottlerOptionError('configuration', `an index from 0 to ${events.length - 1}`, configuration);
    }
    list.push(eventOf(decision));
    if (decision.channel !== undefined) channelsSeen[configuration]?.add(decision.channel);
  };
  const panels = (): TimelineInput[] =>
    configurations.map((configuration, index) => ({
      events: events[index] ?? [],
      rate: configuration.rate,
      channels: ratesOf(configuration, channelsSeen[index] ?? new Set()),
      title: configuration.name ?? `#${index + 1}`,
    }));
  return {
    onDecision,
    panels,
    svg: (options = {}) => renderTimelines(panels(), { layout: 'columns', ...options }),
  };
}
