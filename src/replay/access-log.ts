/**
 * A recording made from an access log (docs/replay.md, "From an access log"): one arrival per request line,
 * its time from the line's timestamp, its key taken by a pattern, its outcome from the status where the
 * format has one. Streams: one line in, at most one line out, nothing held but the previous line's time.
 */
import { describeValue, ThrottlerOptionError } from '../rate/index.js';
import { RECORDING_FORMAT, RECORDING_VERSION, type RecordedArrival, type RecordingHeader } from './format.js';

/** The formats an access log may be in. */
export type AccessLogFormat = 'combined' | 'plain';

export interface AccessLogOptions {
  /**
   * `'combined'` (default): nginx's and Apache's combined format (`$remote_addr - $remote_user [$time_local]
   * "$request" $status ...`), the time from the brackets, a 429 status as outcome `'429'`, a 5xx as `'error'`.
   * `'plain'`: a timestamp (ISO 8601, or epoch seconds or ms) then, after a space, the key (optional).
   */
  format?: AccessLogFormat | undefined;
  /**
   * Where a line's key is: a regular expression (or its source) whose group named `key`, or else its first
   * group, is the key. Default: none (combined: no key; plain: the rest of the line after the timestamp).
   * A line it does not match is an arrival without a key.
   */
  keyPattern?: RegExp | string | undefined;
  /** The configuration the header records (a replay's default). Default `{}`: give one to the replay. */
  configuration?: object | undefined;
}

/** What an import found, as it went: lines read, arrivals made, and lines set back in time or skipped. */
export interface AccessLogImport {
  lines: number;
  arrivals: number;
  /** Lines whose time was before the previous line's (workers writing at once): taken at the previous time. */
  reordered: number;
  /** Blank lines. */
  blank: number;
}

/** A line of the log that cannot be read: its number and why. */
export class AccessLogError extends TypeError {
  override name = 'AccessLogError';
  constructor(
    readonly line: number,
    problem: string,
  ) {
    super(`access log line ${line}: ${problem}`);
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** `[10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 429` */
const COMBINED =
  /\[(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))? ([+-])(\d{2})(\d{2})\] "[^"]*" (\d{3}) /;

/** A combined line's time (ms since the epoch) and status, or undefined when it is not one. */
function readCombined(text: string): { at: number; status: number } | undefined {
  const found = COMBINED.exec(text);
  if (found === null) return undefined;
  const [, day, month, year, hour, minute, second, fraction, sign, zoneHours, zoneMinutes, status] =
    found as unknown as string[];
  const monthIndex = MONTHS.indexOf(month as string);
  if (monthIndex === -1) return undefined;
  const ms = fraction === undefined ? 0 : Number(`0.${fraction}`) * 1000;
  const local = Date.UTC(Number(year), monthIndex, Number(day), Number(hour), Number(minute), Number(second), ms);
  const offset = (Number(zoneHours) * 60 + Number(zoneMinutes)) * 60_000 * (sign === '-' ? -1 : 1);
  return { at: local - offset, status: Number(status) };
}

/** A plain line's timestamp (ISO 8601, or epoch seconds below 1e11, else ms) and the rest of the line. */
function readPlain(text: string): { at: number; rest: string } | undefined {
  const space = text.search(/\s/);
  const stamp = space === -1 ? text : text.slice(0, space);
  const rest = space === -1 ? '' : text.slice(space).trim();
  if (/^\d+(\.\d+)?$/.test(stamp)) {
    const value = Number(stamp);
    return { at: value < 1e11 ? value * 1000 : value, rest };
  }
  const at = Date.parse(stamp);
  return Number.isNaN(at) ? undefined : { at, rest };
}

function checkOptions(options: AccessLogOptions): { format: AccessLogFormat; pattern: RegExp | undefined } {
  const format = options.format ?? 'combined';
  if (format !== 'combined' && format !== 'plain') {
    throw new ThrottlerOptionError('format', "'combined' or 'plain'", options.format);
  }
  const given = options.keyPattern;
  if (given === undefined || given instanceof RegExp) return { format, pattern: given };
  if (typeof given !== 'string' || given === '') {
    throw new ThrottlerOptionError('keyPattern', 'a RegExp, or its source as a non-empty string', given);
  }
  try {
    const pattern = new RegExp(given);
    return { format, pattern };
  } catch (error) {
    throw new ThrottlerOptionError('keyPattern', `a valid regular expression (${(error as Error).message})`, given);
  }
}

/** The key a pattern takes from a line: its `key` group, or its first group, or the whole match. */
function keyOf(pattern: RegExp, text: string): string | undefined {
  const found = pattern.exec(text);
  if (found === null) return undefined;
  const key = found.groups?.key ?? found[1] ?? found[0];
  return key === '' ? undefined : key;
}

/**
 * Reads an access log's lines (an iterable or async iterable: `recordingFile(path)` reads any file's lines)
 * and yields a recording's lines, the header first, each without its newline. `report`, when given, is
 * filled in as it goes. Throws an AccessLogError at a line it cannot read the time of.
 */
export async function* importAccessLog(
  lines: Iterable<string> | AsyncIterable<string>,
  options: AccessLogOptions = {},
  report: AccessLogImport = { lines: 0, arrivals: 0, reordered: 0, blank: 0 },
): AsyncGenerator<string> {
  const { format, pattern } = checkOptions(options);
  let startedAt: number | undefined;
  let previous = 0;
  for await (const raw of lines) {
    report.lines++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') {
      report.blank++;
      continue;
    }
    const arrival = readLine(text, format, pattern, report.lines);
    if (startedAt === undefined) {
      startedAt = arrival.at;
      yield JSON.stringify(headerOf(options.configuration ?? {}, startedAt));
    }
    let t = arrival.at - startedAt;
    if (t < previous) {
      report.reordered++;
      t = previous;
    }
    previous = t;
    report.arrivals++;
    const line: RecordedArrival = { t, channel: arrival.key, outcome: arrival.outcome };
    yield JSON.stringify(line);
  }
}

function headerOf(configuration: object, startedAt: number): RecordingHeader {
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    configuration: configuration as Record<string, unknown>,
    clock: 'access log (ms since the epoch)',
    startedAt,
    wallClock: new Date(startedAt).toISOString(),
  };
}

interface LogArrival {
  at: number;
  key: string | undefined;
  outcome: RecordedArrival['outcome'];
}

function readLine(text: string, format: AccessLogFormat, pattern: RegExp | undefined, line: number): LogArrival {
  if (format === 'plain') {
    const plain = readPlain(text);
    if (plain === undefined) {
      throw new AccessLogError(
        line,
        `no timestamp (ISO 8601 or epoch seconds or ms) at its start: ${describeValue(text)}`,
      );
    }
    const key = pattern === undefined ? plain.rest || undefined : keyOf(pattern, text);
    return { at: plain.at, key, outcome: undefined };
  }
  const combined = readCombined(text);
  if (combined === undefined) {
    throw new AccessLogError(
      line,
      `not in the combined format ([day/Mon/year:hh:mm:ss zone] "request" status ...): ${describeValue(text)}`,
    );
  }
  const { status } = combined;
  const outcome = status === 429 ? '429' : status >= 500 ? 'error' : 'ok';
  return { at: combined.at, key: pattern === undefined ? undefined : keyOf(pattern, text), outcome };
}
