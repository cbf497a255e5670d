/**
 * `xstate-throttler/replay`: record what reaches a throttler, replay it through another configuration in
 * virtual time, and compare (docs/replay.md). A separate entry point: the core package never loads it.
 */
export {
  AccessLogError,
  type AccessLogFormat,
  type AccessLogImport,
  type AccessLogOptions,
  importAccessLog,
} from './access-log.js';
export type { RecordingSink } from './arrival-log.js';
export type { FleetOf, FleetStore } from './fleet.js';
export {
  type RecordedArrival,
  type RecordedOutcome,
  RecordingFormatError,
  type RecordingHeader,
  type TaskEnd,
} from './format.js';
export { mergeRecordings } from './merge.js';
export type { OutcomeReader } from './outcome.js';
export { type RecordingItem, type RecordingSource, readRecording, recordingFile } from './read.js';
export {
  type ActorRecording,
  type RecordableThrottler,
  type RecorderOptions,
  type Recording,
  recordActor,
  recordThrottler,
  type ThrottlerRecording,
} from './recorder.js';
export {
  type Comparison,
  compare,
  type ReplayConfiguration,
  type ReplayDecision,
  type ReplayOptions,
  replay,
} from './replay.js';
export type { KeyReport, ReplayReport, TrafficSummary } from './report.js';
export type { WaitSummary } from './wait-summary.js';
