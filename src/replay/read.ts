/**
 * A recording read line by line, each checked (format.ts) as it comes: the reader holds one line at a
 * time (a file: one chunk of lines), so a replay's memory is bounded by the throttler's queue, never by the
 * recording's length. Lines at hand (a text, an iterable, a file's chunk) are read without an await each.
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

/** A source that can hand its lines over a chunk at a time (recordingFile): an array of lines a step. */
const CHUNKS = Symbol('xstate-throttler.recording-chunks');

interface ChunkedSource extends AsyncIterable<string> {
  [CHUNKS](): AsyncIterable<string[]>;
}

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

/** Reads lines one by one, in order: the header, then each arrival, checked; blank lines skipped (and counted). */
export class RecordingReader {
  private line = 0;
  private header: RecordingHeader | undefined;
  private after = 0;

  /** The line's item, or undefined for a blank line; throws a RecordingFormatError at a wrong one. */
  read(raw: string): RecordingItem | undefined {
    this.line++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return undefined;
    if (this.header === undefined) {
      this.header = readHeader(text, this.line);
      return { kind: 'header', header: this.header };
    }
    const arrival = readArrival(text, this.line, this.after);
    this.after = arrival.t;
    return { kind: 'arrival', arrival, line: this.line };
  }

  /** The end of the recording: one without a header line is refused at its first line. */
  end(): void {
    if (this.header === undefined)
      throw new RecordingFormatError(Math.max(this.line, 1), undefined, 'no header line: the recording is empty');
  }
}

/**
 * Hands every line of the source to `each`, in order, awaiting what `each` returns only when it returns a
 * promise (a fleet's step); a chunked source a chunk per await, a text or an iterable with none.
 */
export async function forEachLine(
  source: RecordingSource,
  each: (line: string) => Promise<void> | undefined,
): Promise<void> {
  if (typeof source === 'object' && source !== null && CHUNKS in source) {
    for await (const chunk of (source as ChunkedSource)[CHUNKS]()) {
      for (const line of chunk) {
        const step = each(line);
        if (step !== undefined) await step;
      }
    }
    return;
  }
  const lines = typeof source === 'string' ? linesOf(source) : source;
  if (typeof lines === 'object' && lines !== null && Symbol.iterator in lines) {
    for (const line of lines as Iterable<string>) {
      const step = each(line);
      if (step !== undefined) await step;
    }
    return;
  }
  for await (const line of lines as AsyncIterable<string>) {
    const step = each(line);
    if (step !== undefined) await step;
  }
}

/**
 * Reads a recording: its header, then its arrivals in order, each line checked; throws a
 * RecordingFormatError naming the line and the field at the first wrong one. Blank lines are skipped (and
 * counted). A recording without a header line is refused at its first line.
 */
export async function* readRecording(source: RecordingSource): AsyncGenerator<RecordingItem> {
  const reader = new RecordingReader();
  const lines = typeof source === 'string' ? linesOf(source) : source;
  for await (const raw of lines as AsyncIterable<string>) {
    const item = reader.read(raw);
    if (item !== undefined) yield item;
  }
  reader.end();
}

/** A file's text in chunks, split into whole lines: a line cut by a chunk's end is carried to the next. */
async function* fileChunks(path: string): AsyncGenerator<string[]> {
  const { createReadStream } = await import('node:fs');
  let carried = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
    const lines = (carried + (chunk as string)).split('\n');
    carried = lines.pop() as string;
    yield lines;
  }
  if (carried !== '') yield [carried];
}

/**
 * A recording file's lines, read as they are needed, 64 KiB at a time (Node: `node:fs`, loaded only when
 * read, so the entry point itself loads nothing Node-only). Iterate it for its lines; `replay` and
 * `compare` take it a chunk of lines at a time.
 */
export function recordingFile(path: string): AsyncIterable<string> {
  const source: ChunkedSource = {
    [CHUNKS]: () => fileChunks(path),
    async *[Symbol.asyncIterator]() {
      for await (const chunk of fileChunks(path)) yield* chunk;
    },
  };
  return source;
}
