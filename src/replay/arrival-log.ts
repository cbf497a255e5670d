/**
 * The recorder's writer: arrivals held in arrival order until each is complete (decided, and with its task's
 * end where the recorder waits for it), then written as lines, so a recording reads in arrival order. At most
 * `maxPending` are held: past that the oldest is written with what is known of it, so a task that never ends
 * cannot make the recorder hold every later arrival.
 */
import { ThrottlerOptionError } from '../rate/index.js';
import { arrivalLine, type RecordedArrival, type RecordingHeader } from './format.js';

/** Where a recording's lines go: a function handed each line (ending in a newline), or a writable stream. */
export type RecordingSink = ((line: string) => void) | { write(text: string): unknown };

/** One arrival being recorded: filled in as its fate becomes known. */
export interface LogEntry {
  readonly arrival: RecordedArrival;
  complete: boolean;
  written: boolean;
}

export const DEFAULT_MAX_PENDING = 10_000;

export function checkSink(sink: unknown): (line: string) => void {
  if (typeof sink === 'function') return sink as (line: string) => void;
  const writable = sink as { write?: unknown } | null;
  if (typeof writable === 'object' && writable !== null && typeof writable.write === 'function') {
    return (line) => (writable as { write(text: string): unknown }).write(line);
  }
  throw new ThrottlerOptionError('to', 'a function (line) => void or a writable (anything with write(text))', sink);
}

/** A writable takes the lines of a run as one text (`write` per line is most of what a file stream costs). */
export function joinsLines(sink: RecordingSink): boolean {
  return typeof sink !== 'function';
}

export function checkMaxPending(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_PENDING;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  throw new ThrottlerOptionError('maxPending', 'a positive integer', value);
}

export class ArrivalLog {
  private readonly held: (LogEntry | undefined)[] = [];
  private head = 0;
  private closed = false;

  constructor(
    private readonly write: (line: string) => void,
    private readonly maxPending: number,
    header: RecordingHeader,
  ) {
    write(`${JSON.stringify(header)}\n`);
  }

  /** An arrival seen now; written once `complete` is set and `flush` runs, in arrival order. */
  open(arrival: RecordedArrival): LogEntry {
    const entry: LogEntry = { arrival, complete: false, written: false };
    if (this.closed) return entry;
    this.held.push(entry);
    this.flush();
    return entry;
  }

  /** Marks the entry complete and writes what can be written. */
  complete(entry: LogEntry): void {
    entry.complete = true;
    this.flush();
  }

  /** Writes every entry held, complete or not; later news of them is ignored. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    while (this.head < this.held.length) this.writeHead();
  }

  private flush(): void {
    while (this.head < this.held.length) {
      const entry = this.held[this.head] as LogEntry;
      if (!entry.complete && this.held.length - this.head <= this.maxPending) break;
      this.writeHead();
    }
    // Compacted once half the array is written, so the array is bounded by twice the entries held.
    if (this.head > 1024 && this.head * 2 > this.held.length) {
      this.held.splice(0, this.head);
      this.head = 0;
    }
  }

  private writeHead(): void {
    const entry = this.held[this.head] as LogEntry;
    this.held[this.head] = undefined;
    this.head++;
    entry.written = true;
    this.write(`${arrivalLine(entry.arrival)}\n`);
  }
}
