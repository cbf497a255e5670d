/**
 * `xstate-throttler/timeline`: a picture of what a throttler did, as SVG, and a recorder for the
 * events it needs. A separate entry point: the core package never loads it.
 */
export type { BusiestWindow } from './busiest-window.js';
export type { TimelineEvent, TimelineRates } from './events.js';
export { busiestWindows, type TimelineInput } from './panel-input.js';
export { type RecordTimelineOptions, recordTimeline, type TimelineRecording } from './recorder.js';
export { renderTimeline, renderTimelines, type TimelineOptions } from './render.js';
export {
  type ReplayedConfiguration,
  type ReplayedDecision,
  type ReplayTimelines,
  replayTimelines,
} from './replay-timelines.js';
