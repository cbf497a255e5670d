/**
 * What a response looks like to the reader: its status, if known, and the few header fields about
 * limits, by lower-case name. Takes a fetch `Response` (or anything with `headers` and `status`,
 * such as Node's `IncomingMessage` with `statusCode`), a `Headers`, a `Map` or array of
 * `[name, value]` pairs, or a plain object of names to values; names in any case.
 */
import { describeValue, ThrottlerOptionError } from '../rate/index.js';
import type { IgnoredServerValue } from './types.js';

/** Header values as fetch, Node and hand-written objects hold them. */
export type HeaderValue = string | number | readonly string[] | undefined;

/** What `Headers` and `Map` have in common (typed apart from iteration, which TypeScript's DOM lib alone lacks). */
export interface HeadersWithForEach {
  forEach(callback: (value: string, name: string) => void): void;
}

/** A set of headers: a `Headers`, a `Map` or array of pairs, or an object of names to values. */
export type HeadersInput =
  | HeadersWithForEach
  | Iterable<readonly [string, HeaderValue]>
  | { readonly [name: string]: HeaderValue };

/** A response: anything with `headers` and, optionally, `status` (fetch) or `statusCode` (Node). */
export interface ResponseInput {
  readonly headers: HeadersInput;
  readonly status?: number | undefined;
  readonly statusCode?: number | undefined;
}

/** What `readServerLimits` reads. */
export type ServerLimitsSource = ResponseInput | HeadersInput;

/** The fields the reader looks at; every other header is passed over. */
export const LIMIT_FIELDS = new Set([
  'retry-after',
  'date',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-reset-after',
  'x-rate-limit-limit',
  'x-rate-limit-remaining',
  'x-rate-limit-reset',
]);

export interface ResponseFields {
  readonly status: number | undefined;
  /** The limit fields present, by lower-case name; a field given twice is joined with `, `, as HTTP does. */
  readonly fields: ReadonlyMap<string, string>;
}

const SOURCE_SHAPE =
  'a fetch Response, a Headers, a Map or array of [name, value] pairs, or an object of header names to values';

/** Reads the status and the limit fields; throws only when `source` is not a response or headers at all. */
export function readResponseFields(source: unknown, ignored: IgnoredServerValue[]): ResponseFields {
  if (typeof source !== 'object' || source === null) throw new ThrottlerOptionError('response', SOURCE_SHAPE, source);
  const fields = new Map<string, string>();
  const response = source as Partial<ResponseInput>;
  if (!isIterable(source) && typeof response.headers === 'object' && response.headers !== null) {
    const status = readStatus(response.status ?? response.statusCode, ignored);
    collect(response.headers, fields, ignored);
    return { status, fields };
  }
  collect(source, fields, ignored);
  return { status: undefined, fields };
}

function isIterable(value: object): value is Iterable<unknown> {
  return typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

function readStatus(status: unknown, ignored: IgnoredServerValue[]): number | undefined {
  if (status === undefined) return undefined;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) return status;
  ignored.push({
    field: 'status',
    value: describeValue(status),
    reason: 'not an HTTP status (100 to 599): read as unknown',
  });
  return undefined;
}

function collect(headers: object, fields: Map<string, string>, ignored: IgnoredServerValue[]): void {
  if (!Array.isArray(headers) && typeof (headers as Partial<HeadersWithForEach>).forEach === 'function') {
    (headers as HeadersWithForEach).forEach((value, name) => {
      add(name, value, fields, ignored);
    });
    return;
  }
  if (isIterable(headers)) {
    for (const entry of headers) {
      if (Array.isArray(entry)) add(entry[0], entry[1], fields, ignored);
    }
    return;
  }
  // Own keys only: a header name is data, never a property of Object.prototype.
  for (const name of Object.keys(headers)) add(name, (headers as Record<string, unknown>)[name], fields, ignored);
}

function add(name: unknown, value: unknown, fields: Map<string, string>, ignored: IgnoredServerValue[]): void {
  if (typeof name !== 'string') return;
  const field = name.toLowerCase();
  if (!LIMIT_FIELDS.has(field) || value === undefined) return;
  const text = headerText(value);
  if (text === undefined) {
    ignored.push({ field, value: describeValue(value), reason: 'not a string, a number or a list of strings' });
    return;
  }
  const earlier = fields.get(field);
  fields.set(field, earlier === undefined ? text : `${earlier}, ${text}`);
}

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return value.join(', ');
  return undefined;
}
