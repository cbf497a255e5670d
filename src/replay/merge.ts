/**
 * Recordings of a fleet's processes merged into one, in arrival order on their common clock: each arrival
 * carries its process, and the merged recording replays as one fleet (`fleet`). Holds one arrival per
 * recording at a time, so memory is bounded by the number of processes, not by the recordings.
 */
import { describeValue } from '../rate/index.js';
import { arrivalLine, type RecordedArrival, RecordingFormatError, type RecordingHeader } from './format.js';
import { type RecordingItem, type RecordingSource, readRecording } from './read.js';

interface Cursor {
  readonly items: AsyncGenerator<RecordingItem>;
  readonly header: RecordingHeader;
  readonly process: string;
  /** The next arrival, its time moved onto the merged recording's start; undefined once read to the end. */
  next: RecordedArrival | undefined;
}

async function advance(cursor: Cursor, startedAt: number): Promise<void> {
  const item = await cursor.items.next();
  if (item.done) {
    cursor.next = undefined;
    return;
  }
  const arrival = (item.value as { arrival: RecordedArrival }).arrival;
  const shift = cursor.header.startedAt - startedAt;
  const moved = (time: number | undefined) => (time === undefined ? undefined : time + shift);
  cursor.next = {
    ...arrival,
    t: arrival.t + shift,
    deadline: moved(arrival.deadline),
    sent: moved(arrival.sent),
    process: arrival.process ?? cursor.process,
  };
}

async function open(source: RecordingSource, at: number): Promise<Omit<Cursor, 'next'>> {
  const items = readRecording(source);
  const first = await items.next();
  if (first.done || first.value.kind !== 'header') {
    throw new RecordingFormatError(1, undefined, `recording ${at + 1} of the merge has no header line`);
  }
  return { items, header: first.value.header, process: `${at + 1}` };
}

/**
 * Merges the recordings of several processes (each a RecordingSource, the header first) into one, yielded
 * line by line, the header first: arrivals in order of their time on the common clock (`startedAt + t`,
 * the merged recording starting at the earliest `startedAt`), each with its `process` (its own, else its
 * recording's place: `'1'`, `'2'`, ...). The header's configuration is the first recording's. Every
 * recording's `clock` must be the same (times on different clocks cannot be merged): a RecordingFormatError
 * says which differs.
 */
export async function* mergeRecordings(sources: readonly RecordingSource[]): AsyncGenerator<string> {
  if (!Array.isArray(sources) || sources.length === 0) {
    throw new RecordingFormatError(
      1,
      undefined,
      `mergeRecordings takes a non-empty array of recordings, got ${describeValue(sources)}`,
    );
  }
  const opened = await Promise.all(sources.map(open));
  const [first] = opened as [Omit<Cursor, 'next'>];
  const other = opened.findIndex((each) => each.header.clock !== first.header.clock);
  if (other !== -1) {
    throw new RecordingFormatError(
      1,
      'clock',
      `recording ${other + 1} of the merge was timed on ${JSON.stringify(opened[other]?.header.clock)}, recording 1 on ${JSON.stringify(first.header.clock)}: merge recordings made on one clock`,
    );
  }
  const startedAt = Math.min(...opened.map((each) => each.header.startedAt));
  yield JSON.stringify({ ...first.header, startedAt });
  const cursors: Cursor[] = opened.map((each) => ({ ...each, next: undefined }));
  await Promise.all(cursors.map((cursor) => advance(cursor, startedAt)));
  for (;;) {
    let earliest: Cursor | undefined;
    // The earliest next arrival; at one time, the recording given first (a few processes: a scan beats a heap).
    for (const cursor of cursors) {
      if (cursor.next !== undefined && (earliest === undefined || cursor.next.t < (earliest.next as RecordedArrival).t))
        earliest = cursor;
    }
    if (earliest === undefined) return;
    yield arrivalLine(earliest.next as RecordedArrival);
    await advance(earliest, startedAt);
  }
}
