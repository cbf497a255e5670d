/**
 * `replay` and `compare`: a recording read once, its arrivals fed in order to one ReplayRun per configuration
 * (replay-run.ts: the real throttler on a virtual clock). A recording streamed from a file is read once
 * whatever the number of configurations, and memory is bounded by the queues, not by the recording.
 */
import { STRATEGIES } from '../machine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import type { RecordedArrival } from './format.js';
import { forEachLine, RecordingReader, type RecordingSource } from './read.js';
import { type ReplayConfiguration, type ReplayDecision, ReplayRun } from './replay-run.js';
import { comparisonTable, type ReplayReport } from './report.js';

export type { ReplayConfiguration, ReplayDecision } from './replay-run.js';

export interface ReplayOptions {
  /** Hears each decision as it is made (the replay keeps none of them). */
  onDecision?: ((decision: ReplayDecision, configuration: number) => void) | undefined;
  /**
   * Arrivals at one instant: `'one-by-one'` (default) sends each as its own QUEUE, as a machine's sender
   * does; `'batch'` hands them over as one QUEUE_BATCH, as the promise API does with the calls of one
   * synchronous stretch (faster, and for a log with times in whole seconds the only order there is; in
   * an idle throttler a batch goes in priority order, where QUEUEs one by one let the first pass at once,
   * and with a full queue a message a drop lets go waits for the batch's end, where a later arrival of it
   * may displace it).
   */
  sameInstant?: 'one-by-one' | 'batch' | undefined;
}

const SAME_INSTANT: readonly unknown[] = ['one-by-one', 'batch', undefined];

/** What `compare` returns: a report per configuration, in order, and the table of their differences. */
export interface Comparison {
  reports: ReplayReport[];
  /** The reports side by side, as markdown; figures that differ from the first configuration's in bold. */
  table: string;
}

/** Reads the recording once, feeding every arrival to one replay per configuration (undefined: as recorded). */
async function replayAll(
  recording: RecordingSource,
  configurations: readonly (ReplayConfiguration | undefined)[],
  options: ReplayOptions,
): Promise<ReplayReport[]> {
  if (!SAME_INSTANT.includes(options.sameInstant)) {
    throw new ThrottlerOptionError('sameInstant', "'one-by-one' or 'batch'", options.sameInstant);
  }
  const batches = options.sameInstant === 'batch';
  let runs: ReplayRun[] = [];
  const reader = new RecordingReader();
  await forEachLine(recording, (raw) => {
    const item = reader.read(raw);
    if (item === undefined) return undefined;
    if (item.kind === 'arrival') return arriveAtEach(runs, item.arrival, item.line);
    runs = configurations.map((given, at) => {
      const configuration = given ?? recordedConfiguration(item.header.configuration);
      const name = given?.name ?? (given === undefined ? 'as recorded' : `#${at + 1}`);
      const onDecision = options.onDecision;
      return new ReplayRun(configuration, name, onDecision && ((decision) => onDecision(decision, at)), batches);
    });
    return undefined;
  });
  reader.end();
  const reports: ReplayReport[] = [];
  for (const run of runs) reports.push(await run.finish());
  return reports;
}

/**
 * The configuration a recording's header holds. A strategy of one's own is recorded by its name alone, which
 * nothing can make a strategy of: refused naming it, and saying what to pass.
 */
function recordedConfiguration(recorded: object): ReplayConfiguration {
  const { strategy } = recorded as { strategy?: unknown };
  if (typeof strategy === 'string' && !(STRATEGIES as readonly string[]).includes(strategy)) {
    throw new ThrottlerOptionError(
      'strategy',
      `given as its value (defineStrategy): a recording holds only its name`,
      strategy,
    );
  }
  return recorded as ReplayConfiguration;
}

/** An arrival to every run: at once, or (a fleet's) each step after the one before. */
function arriveAtEach(runs: readonly ReplayRun[], arrival: RecordedArrival, line: number): Promise<void> | undefined {
  let steps: Promise<void> | undefined;
  for (const run of runs) {
    steps = steps === undefined ? run.arrive(arrival, line) : steps.then(() => run.arrive(arrival, line));
  }
  return steps;
}

/**
 * Replays a recording through `configuration` (default: the one its header records) in virtual time, and
 * reports per key and overall: waits, what was dropped or refused and why, throughput, and the audit of
 * every window. Throws a RecordingFormatError at the first wrong line, a ThrottlerOptionError for a wrong
 * option.
 */
export async function replay(
  recording: RecordingSource,
  configuration?: ReplayConfiguration,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const [report] = await replayAll(recording, [configuration], options);
  return report as ReplayReport;
}

/**
 * Replays one recording through each configuration, reading it once (a file is streamed once, whatever
 * the number of configurations), and sets the reports side by side.
 */
export async function compare(
  recording: RecordingSource,
  configurations: readonly ReplayConfiguration[],
  options: ReplayOptions = {},
): Promise<Comparison> {
  if (!Array.isArray(configurations) || configurations.length === 0) {
    throw new ThrottlerOptionError('configurations', 'a non-empty array of configurations', configurations);
  }
  const reports = await replayAll(recording, configurations, options);
  return { reports, table: comparisonTable(reports) };
}
