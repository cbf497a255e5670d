/**
 * `recordThrottler`'s writer: each arrival kept as numbers in preallocated typed arrays (chunks of 4,096
 * arrivals: times, cost, an interned channel, priority, state), not as objects, and its line formatted later,
 * a whole run of complete arrivals at once on a microtask (or at once when `maxPending` are held, or on
 * close). Same lines, same order and the same bound as arrival-log.ts, which `recordActor` keeps: a task's
 * hot path allocates no record and formats nothing (bench/w1-recording.ts measures what that saves).
 * An arrival whose fields the columns cannot hold as numbers (a cost map, a priority out of 0-9, ...) is
 * kept as its object, in a map by index.
 */
import { arrivalLine, jsonNumber, type RecordedArrival, type RecordedOutcome, type RecordingHeader } from './format.js';

/** A writable is handed the lines at hand as one text of about this many characters at most. */
const JOINED_CHARS = 1 << 16;
const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;

/** State bits: complete, and how it ended or why it never ran. */
const COMPLETE = 1;
const OUTCOMES: readonly (RecordedOutcome | undefined)[] = [undefined, 'ok', 'error', '429'];
const OUTCOME_SHIFT = 1; // two bits: an index into OUTCOMES
const OK_STATE = 1 << OUTCOME_SHIFT;
const DROPPED = 8;
const REJECTED = 16;

class Chunk {
  readonly t = new Float64Array(CHUNK);
  readonly sent = new Float64Array(CHUNK);
  readonly ran = new Float64Array(CHUNK);
  readonly cost = new Float64Array(CHUNK);
  readonly deadline = new Float64Array(CHUNK);
  readonly maxWait = new Float64Array(CHUNK);
  readonly retryAfter = new Float64Array(CHUNK);
  readonly channel = new Int32Array(CHUNK);
  readonly priority = new Int8Array(CHUNK);
  readonly state = new Uint8Array(CHUNK);
}

/** An arrival's fields as the recorder reads them from a task's options (NaN or -1: absent). */
export interface ColumnFields {
  t: number;
  cost: number;
  channel: string | undefined;
  priority: number;
  deadline: number;
  maxWait: number;
}

/** A number's field, or nothing for NaN (absent). */
function numberField(prefix: string, value: number): string {
  return Number.isNaN(value) ? '' : prefix + jsonNumber(value);
}

export class ArrivalColumns {
  private readonly chunks: Chunk[] = [];
  private readonly spare: Chunk[] = [];
  /** Index of the first arrival of chunks[0], the next arrival's, and the next to write. */
  private base = 0;
  private next = 0;
  private head = 0;
  private readonly channels = new Map<string, number>();
  private readonly names: string[] = [];
  /** Each channel's and the process's name as JSON writes it, once. */
  private readonly quotedNames: string[] = [];
  private readonly quotedProcess: string | undefined;
  /** Arrivals the columns cannot hold, and the reasons of drops and refusals, by index. */
  private readonly objects = new Map<number, RecordedArrival>();
  private readonly reasons = new Map<number, string>();
  private flushing = false;
  private closed = false;
  private readonly flushSoon = () => {
    this.flushing = false;
    this.flush();
  };

  constructor(
    private readonly write: (line: string) => void,
    private readonly maxPending: number,
    header: RecordingHeader,
    process: string | undefined,
    /** Lines written together as one text (a writable), not one call each (a function, handed each line). */
    private readonly joins = false,
  ) {
    write(`${JSON.stringify(header)}\n`);
    this.quotedProcess = process === undefined ? undefined : JSON.stringify(process);
  }

  /** Arrivals opened so far. */
  get arrivals(): number {
    return this.next;
  }

  /** An arrival seen now, as numbers; its index. */
  open(fields: ColumnFields): number {
    const index = this.next++;
    if (this.closed) {
      this.head = this.next; // after close: counted, never written, any later news ignored
      return index;
    }
    const chunk = this.chunkOf(index);
    const at = index & (CHUNK - 1);
    chunk.t[at] = fields.t;
    chunk.cost[at] = fields.cost;
    chunk.deadline[at] = fields.deadline;
    chunk.maxWait[at] = fields.maxWait;
    chunk.priority[at] = fields.priority;
    chunk.channel[at] = fields.channel === undefined ? -1 : this.channelIndex(fields.channel);
    chunk.sent[at] = Number.NaN;
    chunk.state[at] = 0;
    if (this.next - this.head > this.maxPending) this.flush();
    return index;
  }

  /** An arrival the columns cannot hold: kept as its object. */
  openObject(arrival: RecordedArrival): number {
    const absent = Number.NaN;
    const index = this.open({
      t: arrival.t,
      cost: absent,
      channel: undefined,
      priority: -1,
      deadline: absent,
      maxWait: absent,
    });
    if (!this.written(index)) this.objects.set(index, arrival);
    return index;
  }

  sentAt(index: number): number {
    const object = this.objects.get(index);
    if (object !== undefined) return object.sent ?? Number.NaN;
    return this.written(index) ? Number.NaN : (this.chunkAt(index)?.sent[index & (CHUNK - 1)] ?? Number.NaN);
  }

  /**
   * A task that started at `sent` returned now, after `ran`, with nothing to read of its value: ended 'ok' and
   * complete, as ended() then complete() do, in one call on a task's hot path with no map lookup. False,
   * having done nothing, when the general path must: an arrival kept as an object, or written, or started
   * before `sent`.
   */
  endedOk(index: number, sent: number, ran: number): boolean {
    if (this.objects.size > 0 || index < this.head) return false;
    const chunk = this.chunks[(index - this.base) >> CHUNK_BITS] as Chunk;
    const at = index & (CHUNK - 1);
    if (chunk.sent[at] !== sent) return false;
    chunk.ran[at] = ran;
    chunk.retryAfter[at] = Number.NaN;
    chunk.state[at] = ((chunk.state[at] as number) & ~(3 << OUTCOME_SHIFT)) | OK_STATE | COMPLETE;
    if (index === this.head && !this.flushing) {
      this.flushing = true;
      queueMicrotask(this.flushSoon);
    }
    return true;
  }

  /** Its start, the first time only. */
  started(index: number, sent: number): void {
    if (this.written(index)) return;
    const object = this.objects.size === 0 ? undefined : this.objects.get(index);
    if (object !== undefined) object.sent ??= sent;
    const chunk = this.chunkAt(index) as Chunk;
    const at = index & (CHUNK - 1);
    if (Number.isNaN(chunk.sent[at] as number)) chunk.sent[at] = sent;
  }

  /** Its task's end: run time from its start and outcome (a 429's Retry-After). */
  ended(index: number, ran: number, outcome: RecordedOutcome, retryAfter: number | undefined): void {
    if (this.written(index)) return;
    const object = this.objects.get(index);
    if (object !== undefined) {
      object.ran = ran;
      object.outcome = outcome;
      if (outcome === '429' && retryAfter !== undefined) object.retryAfter = retryAfter;
    }
    const chunk = this.chunkAt(index) as Chunk;
    const at = index & (CHUNK - 1);
    chunk.ran[at] = ran;
    chunk.retryAfter[at] = outcome === '429' && retryAfter !== undefined ? retryAfter : Number.NaN;
    chunk.state[at] =
      ((chunk.state[at] as number) & ~(3 << OUTCOME_SHIFT)) | (OUTCOMES.indexOf(outcome) << OUTCOME_SHIFT);
  }

  /** Never ran: dropped or refused, for this reason. */
  failed(index: number, kind: 'dropped' | 'rejected', reason: string): void {
    if (this.written(index)) return;
    const object = this.objects.get(index);
    if (object !== undefined) object[kind] = reason;
    this.reasons.set(index, reason);
    this.mark(index, kind === 'dropped' ? DROPPED : REJECTED);
  }

  isComplete(index: number): boolean {
    return this.written(index) || ((this.chunkAt(index)?.state[index & (CHUNK - 1)] ?? 0) & COMPLETE) !== 0;
  }

  /** Complete: its line is written on a microtask, with those of every complete arrival before it. */
  complete(index: number): void {
    if (this.written(index)) return;
    this.mark(index, COMPLETE);
    if (index !== this.head || this.flushing) return;
    this.flushing = true;
    queueMicrotask(this.flushSoon);
  }

  /** Writes every arrival held, complete or not; later news of them is ignored. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    let text = '';
    while (this.head < this.next) text = this.emit(text, this.takeHead());
    if (text !== '') this.write(text);
  }

  private mark(index: number, bits: number): void {
    const state = (this.chunkAt(index) as Chunk).state;
    const at = index & (CHUNK - 1);
    state[at] = (state[at] as number) | bits;
  }

  private written(index: number): boolean {
    return index < this.head;
  }

  private flush(): void {
    let text = '';
    while (this.head < this.next) {
      const state = (this.chunkAt(this.head) as Chunk).state[this.head & (CHUNK - 1)] as number;
      if ((state & COMPLETE) === 0 && this.next - this.head <= this.maxPending) break;
      text = this.emit(text, this.takeHead());
    }
    if (text !== '') this.write(text);
  }

  /** A line written, or (joins) added to the text at hand, which is written once it is long enough; the text left. */
  private emit(text: string, line: string): string {
    if (!this.joins) {
      this.write(line);
      return '';
    }
    const joined = text + line;
    if (joined.length < JOINED_CHARS) return joined;
    this.write(joined);
    return '';
  }

  /** The oldest arrival held, taken out as its line. */
  private takeHead(): string {
    const index = this.head++;
    const object = this.objects.size === 0 ? undefined : this.objects.get(index);
    if (object !== undefined) this.objects.delete(index);
    const line = object === undefined ? this.lineAt(index) : `${arrivalLine(object)}\n`;
    if (this.reasons.size > 0) this.reasons.delete(index);
    // A chunk all written goes back to the spares: memory bounded by the arrivals held, not the recording.
    if ((this.head & (CHUNK - 1)) === 0 && this.head - this.base >= CHUNK) {
      this.spare.push(this.chunks.shift() as Chunk);
      this.base += CHUNK;
    }
    return line;
  }

  /** The arrival's line from the columns, as `arrivalLine` writes it (its fields in the format's order). */
  private lineAt(index: number): string {
    const chunk = this.chunkAt(index) as Chunk;
    const at = index & (CHUNK - 1);
    const t = chunk.t[at] as number;
    const tText = jsonNumber(t);
    let line = `{"t":${tText}`;
    line += numberField(',"cost":', chunk.cost[at] as number);
    const channel = chunk.channel[at] as number;
    if (channel >= 0) line += `,"channel":${this.quotedNames[channel]}`;
    const priority = chunk.priority[at] as number;
    if (priority >= 0) line += `,"priority":${priority}`;
    line += numberField(',"deadline":', chunk.deadline[at] as number);
    line += numberField(',"maxWait":', chunk.maxWait[at] as number);
    if (this.quotedProcess !== undefined) line += `,"process":${this.quotedProcess}`;
    const sent = chunk.sent[at] as number;
    const state = chunk.state[at] as number;
    // A task that started as it came (most, where the limit does not bind) has its time's text already.
    if (!Number.isNaN(sent)) line += `,"sent":${sent === t ? tText : jsonNumber(sent)}`;
    else if ((state & (DROPPED | REJECTED)) !== 0) {
      const kind = (state & DROPPED) !== 0 ? 'dropped' : 'rejected';
      line += `,"${kind}":${JSON.stringify(this.reasons.get(index))}`;
    }
    const outcome = OUTCOMES[(state >> OUTCOME_SHIFT) & 3];
    if (!Number.isNaN(sent) && outcome !== undefined) {
      line += `,"ran":${jsonNumber(chunk.ran[at] as number)},"outcome":"${outcome}"`;
      line += numberField(',"retryAfter":', chunk.retryAfter[at] as number);
    }
    return `${line}}\n`;
  }

  private channelIndex(name: string): number {
    let index = this.channels.get(name);
    if (index === undefined) {
      index = this.names.push(name) - 1;
      this.quotedNames.push(JSON.stringify(name));
      this.channels.set(name, index);
    }
    return index;
  }

  private chunkAt(index: number): Chunk | undefined {
    return this.chunks[(index - this.base) >> CHUNK_BITS];
  }

  private chunkOf(index: number): Chunk {
    const chunk = this.chunkAt(index);
    if (chunk !== undefined) return chunk;
    const fresh = this.spare.pop() ?? new Chunk();
    this.chunks.push(fresh);
    return fresh;
  }
}
