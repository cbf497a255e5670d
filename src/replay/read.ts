/**
 * A recording read line by line, each checked (format.ts) as it comes: the reader holds one line at a
 * time, so a replay's memory is bounded by the throttler's queue, never by the recording's length.
 */
import { type RecordedArrival, RecordingFormatError, type RecordingHeader, readArrival, readHeader } from './format.js';

/**
 * Where a recording comes from: its whole NDJSON text, or its lines one by one, at once or as they are
 * read (`recordingFile(path)`, or readline over any stream: `createInterface({ input })`).
 */
export type RecordingSource = string | Iterable<string> | AsyncIterable<string>;

/** What reading a recording yields: the header first, then each arrival with its line number. */
export type RecordingItem =
  | { kind: 'header'; header: RecordingHeader }
  | { kind: 'arrival'; arrival: RecordedArrival; line: number };

/** The lines of a text, one at a time (a large text is not split into an array of them). */
function* linesOf(text: string): Generator<string> {
  let from = 0;
  while (from < text.length) {
    const end = text.indexOf('\n', from);
    if (end === -1) {
      yield text.slice(from);
      return;
    }
    yield text.slice(from, end);
    from = end + 1;
  }
}

/**
 * Reads a recording: its header, then its arrivals in order, each line checked; throws a
 * RecordingFormatError naming the line and the field at the first wrong one. Blank lines are skipped (and
 * counted). A recording without a header line is refused at its first line.
 */
export async function* readRecording(source: RecordingSource): AsyncGenerator<RecordingItem> {
  const lines = typeof source === 'string' ? linesOf(source) : source;
  let line = 0;
  let header: RecordingHeader | undefined;
  let after = 0;
  for await (const raw of lines as AsyncIterable<string>) {
    line++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') continue;
    if (header === undefined) {
      header = readHeader(text, line);
      yield { kind: 'header', header };
      continue;
    }
    const arrival = readArrival(text, line, after);
    after = arrival.t;
    yield { kind: 'arrival', arrival, line };
  }
  if (header === undefined)
    throw new RecordingFormatError(Math.max(line, 1), undefined, 'no header line: the recording is empty');
}

/**
 * A recording file's lines, read as they are needed (Node: `node:fs` and `node:readline`, loaded only
 * when called, so the entry point itself loads nothing Node-only).
 */
export async function* recordingFile(path: string): AsyncGenerator<string> {
  const [{ createReadStream }, { createInterface }] = await Promise.all([import('node:fs'), import('node:readline')]);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    yield* lines;
  } finally {
    lines.close();
  }
}
