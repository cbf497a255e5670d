import type { Rate } from '../rate/index.js';
import type { Delivery, ParsedRates } from './events.js';

/** Channels beyond this many share one lane, so that the picture's height stays bounded. */
export const MAX_CHANNEL_LANES = 16;

/** One row of the picture: the messages without a channel, one channel, or the channels past the cap. */
export interface Lane {
  readonly kind: 'none' | 'channel' | 'other';
  /** The channel's name (kind 'channel'). */
  readonly name?: string;
  /** How many channels share the lane (kind 'other'). */
  readonly channelCount: number;
  readonly deliveries: Delivery[];
  /** The channel's own rates (kind 'channel'). */
  readonly rates: readonly Rate[];
}

/**
 * The lanes, top to bottom: messages without a channel (when there are any, or when no channel is
 * named at all), then channels in the order their rates were given, then in order of first delivery.
 */
export function arrangeLanes(
  deliveriesByChannel: ReadonlyMap<string | undefined, Delivery[]>,
  rates: ParsedRates,
): Lane[] {
  const lanes: Lane[] = [];
  const unnamed = deliveriesByChannel.get(undefined);
  const named = new Set<string>(rates.channels.keys());
  for (const channel of deliveriesByChannel.keys()) if (channel !== undefined) named.add(channel);
  if (unnamed !== undefined || named.size === 0) {
    lanes.push({ kind: 'none', channelCount: 0, deliveries: unnamed ?? [], rates: [] });
  }
  const overflow: Delivery[] = [];
  let overflowChannels = 0;
  let channelLanes = 0;
  for (const name of named) {
    const deliveries = deliveriesByChannel.get(name) ?? [];
    if (channelLanes < MAX_CHANNEL_LANES) {
      channelLanes += 1;
      lanes.push({ kind: 'channel', name, channelCount: 1, deliveries, rates: rates.channels.get(name) ?? [] });
    } else {
      overflowChannels += 1;
      for (const delivery of deliveries) overflow.push(delivery);
    }
  }
  if (overflowChannels > 0) {
    overflow.sort((a, b) => a.at - b.at);
    lanes.push({ kind: 'other', channelCount: overflowChannels, deliveries: overflow, rates: [] });
  }
  return lanes;
}
