/**
 * The recording's format (docs/replay.md, "The format"): NDJSON, a header line then one line per arrival in
 * arrival order. Every field is checked as a line is read, and a wrong one is reported with its line number
 * and its name, so a recording made by another tool says where it went wrong.
 */
import { describeValue } from '../rate/index.js';

export const RECORDING_FORMAT = 'xstate-throttler-recording';
export const RECORDING_VERSION = 1;

/** The first line of a recording. */
export interface RecordingHeader {
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_VERSION;
  /** The throttler's options as recorded (what JSON can hold of them: functions are left out). */
  configuration: Record<string, unknown>;
  /** What the arrivals' times were read from: `'performance.now'`, or the throttler's own `now`. */
  clock: string;
  /** The clock's reading when the recording began: every time in the recording is counted from it. */
  startedAt: number;
  /** The wall-clock time when the recording began (ISO 8601), for people; replays never read it. */
  wallClock?: string | undefined;
}

/** How a recorded task ended: returned, threw, or was answered 429 (with `retryAfter` ms when the server said). */
export type RecordedOutcome = 'ok' | 'error' | '429';

/** What a task's end says: how it ended, and with a 429 the server's Retry-After in ms. */
export interface TaskEnd {
  outcome: RecordedOutcome;
  retryAfter?: number | undefined;
}

/** One arrival, as a line holds it. Times are ms since the recording began, on the throttler's clock. */
export interface RecordedArrival {
  /** When it arrived. Never less than the line before's. */
  t: number;
  /** Its cost: a positive integer, or per dimension (`{ requests: 1, tokens: 1200 }`). Absent: 1. */
  cost?: number | { readonly [dimension: string]: number } | undefined;
  /** Its channel or key. Absent: the overall rate only. */
  channel?: string | undefined;
  /** The process of a fleet it reached (a store throttler's recording merged from several). */
  process?: string | undefined;
  /** 0 to 9. Absent: the default, 5. */
  priority?: number | undefined;
  /** The last moment it could be delivered (same clock as `t`). */
  deadline?: number | undefined;
  /** The longest it could wait, ms. */
  maxWait?: number | undefined;
  /** When it was delivered in the recorded run. */
  sent?: number | undefined;
  /** Why the recorded run dropped it (`'expired'`, `'drop-oldest'`, ...) without delivering it. */
  dropped?: string | undefined;
  /** Why the recorded run refused it as it arrived (`'overflow'`, `'invalid'`). */
  rejected?: string | undefined;
  /** How long its task ran, ms, from its delivery to its end. */
  ran?: number | undefined;
  outcome?: RecordedOutcome | undefined;
  /** With outcome `'429'`: the server's Retry-After, ms. */
  retryAfter?: number | undefined;
}

/** A recording line that is not what the format says: `line` (1 = the header) and the `field` at fault. */
export class RecordingFormatError extends TypeError {
  override name = 'RecordingFormatError';
  readonly line: number;
  /** The field at fault; undefined when the line as a whole is (not JSON, not an object). */
  readonly field: string | undefined;

  constructor(line: number, field: string | undefined, problem: string) {
    super(`recording line ${line}${field === undefined ? '' : `, field ${field}`}: ${problem}`);
    this.line = line;
    this.field = field;
  }
}

type Line = Record<string, unknown>;

/** The fields of an arrival line, in the order a line writes them. */
const LINE_FIELDS = [
  'cost',
  'channel',
  'priority',
  'deadline',
  'maxWait',
  'process',
  'sent',
  'dropped',
  'rejected',
  'ran',
  'outcome',
  'retryAfter',
] as const;

/** Every field an arrival line may hold: its time, then the rest in the order a line writes them. */
const ARRIVAL_FIELDS = new Set<string>(['t', ...LINE_FIELDS]);
const HEADER_FIELDS = new Set(['format', 'version', 'configuration', 'clock', 'startedAt', 'wallClock']);
const OUTCOMES: readonly string[] = ['ok', 'error', '429'];

/** A line's text parsed as a JSON object, or the error naming the line. */
function parseLine(text: string, line: number): Line {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RecordingFormatError(line, undefined, `not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RecordingFormatError(line, undefined, `must be a JSON object, got ${describeValue(value)}`);
  }
  return value as Line;
}

function unknownField(fields: ReadonlySet<string>, value: Line, line: number): void {
  // for...in, not Object.keys: no array a line (JSON.parse makes plain objects, with own fields only).
  for (const name in value) {
    if (!fields.has(name)) {
      throw new RecordingFormatError(line, name, `not a field of this format (known: ${[...fields].join(', ')})`);
    }
  }
}

/** The header line, checked. */
export function readHeader(text: string, line: number): RecordingHeader {
  const value = parseLine(text, line);
  if (value.format !== RECORDING_FORMAT) {
    throw new RecordingFormatError(
      line,
      'format',
      `must be ${JSON.stringify(RECORDING_FORMAT)} (the header line), got ${describeValue(value.format)}`,
    );
  }
  unknownField(HEADER_FIELDS, value, line);
  if (value.version !== RECORDING_VERSION) {
    throw new RecordingFormatError(
      line,
      'version',
      `must be ${RECORDING_VERSION}, got ${describeValue(value.version)}`,
    );
  }
  const { configuration, clock, startedAt, wallClock } = value;
  if (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration)) {
    throw new RecordingFormatError(line, 'configuration', `must be an object, got ${describeValue(configuration)}`);
  }
  if (typeof clock !== 'string')
    throw new RecordingFormatError(line, 'clock', `must be a string, got ${describeValue(clock)}`);
  if (typeof startedAt !== 'number' || !Number.isFinite(startedAt)) {
    throw new RecordingFormatError(line, 'startedAt', `must be a finite number, got ${describeValue(startedAt)}`);
  }
  if (wallClock !== undefined && typeof wallClock !== 'string') {
    throw new RecordingFormatError(line, 'wallClock', `must be a string, got ${describeValue(wallClock)}`);
  }
  return value as unknown as RecordingHeader;
}

function finiteAtLeast(value: Line, field: string, least: number, line: number): void {
  const got = value[field];
  if (got === undefined) return;
  if (typeof got !== 'number' || !Number.isFinite(got) || got < least) {
    throw new RecordingFormatError(line, field, `must be a finite number >= ${least}, got ${describeValue(got)}`);
  }
}

function nonEmptyString(value: Line, field: string, line: number): void {
  const got = value[field];
  if (got !== undefined && (typeof got !== 'string' || got === '')) {
    throw new RecordingFormatError(line, field, `must be a non-empty string, got ${describeValue(got)}`);
  }
}

function checkCost(cost: unknown, line: number): void {
  if (cost === undefined) return;
  if (typeof cost === 'number') {
    if (Number.isInteger(cost) && cost > 0) return;
    throw new RecordingFormatError(line, 'cost', `must be a positive integer, got ${describeValue(cost)}`);
  }
  if (typeof cost !== 'object' || cost === null || Array.isArray(cost) || Object.keys(cost).length === 0) {
    throw new RecordingFormatError(
      line,
      'cost',
      `must be a positive integer or a map of dimension to cost, got ${describeValue(cost)}`,
    );
  }
  for (const [dimension, each] of Object.entries(cost)) {
    if (typeof each !== 'number' || !Number.isInteger(each) || each < 0) {
      throw new RecordingFormatError(line, `cost.${dimension}`, `must be an integer >= 0, got ${describeValue(each)}`);
    }
  }
}

const DECISIONS = ['sent', 'dropped', 'rejected'] as const;
const NON_NEGATIVE_TIMES = ['maxWait', 'sent', 'ran', 'retryAfter'] as const;

function checkDecision(value: Line, line: number): void {
  const given = +(value.sent !== undefined) + +(value.dropped !== undefined) + +(value.rejected !== undefined);
  if (given > 1) {
    const decided = DECISIONS.filter((field) => value[field] !== undefined);
    throw new RecordingFormatError(
      line,
      decided[1],
      `only one of sent, dropped and rejected may be given (also ${decided[0]})`,
    );
  }
  if (typeof value.sent === 'number' && value.sent < (value.t as number)) {
    throw new RecordingFormatError(line, 'sent', `must not be before t (${value.t}), got ${value.sent}`);
  }
  if (value.outcome !== undefined && !OUTCOMES.includes(value.outcome as string)) {
    throw new RecordingFormatError(
      line,
      'outcome',
      `must be one of 'ok', 'error', '429', got ${describeValue(value.outcome)}`,
    );
  }
  if (value.retryAfter !== undefined && value.outcome !== '429') {
    throw new RecordingFormatError(
      line,
      'retryAfter',
      `is only for outcome '429', got outcome ${describeValue(value.outcome)}`,
    );
  }
}

/** An arrival line, checked; `after` is the previous arrival's time (arrivals come in order). */
export function readArrival(text: string, line: number, after: number): RecordedArrival {
  const value = parseLine(text, line);
  unknownField(ARRIVAL_FIELDS, value, line);
  if (value.t === undefined) throw new RecordingFormatError(line, 't', 'is required (the arrival time)');
  finiteAtLeast(value, 't', 0, line);
  if ((value.t as number) < after) {
    throw new RecordingFormatError(
      line,
      't',
      `must not be before the previous arrival's (${after}): arrivals come in order, got ${value.t}`,
    );
  }
  checkCost(value.cost, line);
  nonEmptyString(value, 'channel', line);
  nonEmptyString(value, 'process', line);
  const { priority } = value;
  if (
    priority !== undefined &&
    (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > 9)
  ) {
    throw new RecordingFormatError(line, 'priority', `must be an integer from 0 to 9, got ${describeValue(priority)}`);
  }
  if (value.deadline !== undefined && value.maxWait !== undefined) {
    throw new RecordingFormatError(line, 'maxWait', 'only one of deadline and maxWait may be given');
  }
  if (value.deadline !== undefined && (typeof value.deadline !== 'number' || Number.isNaN(value.deadline))) {
    throw new RecordingFormatError(line, 'deadline', `must be a number, got ${describeValue(value.deadline)}`);
  }
  for (const field of NON_NEGATIVE_TIMES) finiteAtLeast(value, field, 0, line);
  nonEmptyString(value, 'dropped', line);
  nonEmptyString(value, 'rejected', line);
  checkDecision(value, line);
  return value as unknown as RecordedArrival;
}

/**
 * An arrival as its line, without the fields left undefined: what `JSON.stringify` writes, built field by
 * field (the recorder writes one a task, and this costs a third of it). A number that JSON cannot hold
 * (never in a recording: the recorder leaves such a field out) is written as JSON would, `null`.
 */
export function arrivalLine(arrival: RecordedArrival): string {
  let line = `{"t":${jsonNumber(arrival.t)}`;
  for (const field of LINE_FIELDS) {
    const value = arrival[field];
    if (value === undefined) continue;
    line += `,"${field}":${typeof value === 'number' ? jsonNumber(value) : JSON.stringify(value)}`;
  }
  return `${line}}`;
}

/**
 * A number as JSON writes it. A time to the microsecond (the recorder's) is written from its integer count
 * of microseconds, which V8 turns to text far faster than a fraction; the text reads back as the same number.
 */
export function jsonNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const micros = Math.round(value * 1000);
  if (micros / 1000 !== value || !Number.isSafeInteger(micros)) return Number.isFinite(value) ? String(value) : 'null';
  const size = micros < 0 ? -micros : micros;
  const whole = `${micros < 0 ? '-' : ''}${Math.floor(size / 1000)}.`;
  // The fraction's digits without its trailing zeros, told by arithmetic rather than by trimming text.
  const thousandths = size % 1000;
  if (thousandths % 100 === 0) return whole + FRACTION_DIGITS[thousandths / 100];
  if (thousandths % 10 === 0) return whole + (FRACTION_DIGITS[thousandths / 10 + 10] as string);
  return whole + (thousandths < 10 ? '00' : thousandths < 100 ? '0' : '') + thousandths;
}

/** The digits of a fraction: tenths (0-9) as "1".."9", hundredths (10-109) as "01".."99". */
const FRACTION_DIGITS: readonly string[] = [
  ...Array.from({ length: 10 }, (_, tenths) => String(tenths)),
  ...Array.from({ length: 100 }, (_, hundredths) => String(100 + hundredths).slice(1)),
];

/**
 * Options as JSON can hold them, for a header or a report: functions (`now`, a weight function, a
 * strategy's value by its name) and undefined left out, a Map of channels made an object.
 */
export function jsonConfiguration(options: object): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    const plain = jsonValue(value);
    if (plain !== undefined) json[name] = plain;
  }
  return json;
}

function jsonValue(value: unknown): unknown {
  if (typeof value === 'function' || value === undefined || typeof value === 'symbol') return undefined;
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  if (value instanceof Map) return jsonConfiguration(Object.fromEntries(value));
  if (Array.isArray(value)) return value.map((each) => jsonValue(each) ?? null);
  if (typeof value === 'object' && value !== null) {
    const name = (value as { name?: unknown }).name;
    // A strategy given as a value (xstate-throttler/strategies) is saved by its name, as a snapshot saves it.
    if (typeof name === 'string' && typeof (value as { createPolicy?: unknown }).createPolicy === 'function')
      return name;
    return jsonConfiguration(value);
  }
  return value;
}
