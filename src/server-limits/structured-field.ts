/**
 * Just enough of RFC 8941 (Structured Field Values for HTTP) to read the IETF RateLimit fields: a
 * List of Items with Parameters (`"default";r=50;t=30`, `100;w=60`) or a Dictionary
 * (`limit=100, remaining=50, reset=30`). A field with any syntax error is unreadable as a whole
 * (undefined), as RFC 8941 says and the RateLimit draft repeats ("Malformed RateLimit header
 * fields MUST be ignored"). Linear in the field's length, whatever it holds: no backtracking.
 */

/** A bare item: sf-string, token and byte sequence as their text; integer and decimal as numbers; boolean. */
export type BareItem = string | number | boolean;

export interface FieldMember {
  /** The member's key when it is a Dictionary member (`remaining=50`); undefined for a List item. */
  readonly key: string | undefined;
  readonly value: BareItem;
  /** Parameters by key; a key given twice keeps its last value (RFC 8941 §4.2.3.2). */
  readonly params: ReadonlyMap<string, BareItem>;
  /** The member as written, for reports. */
  readonly text: string;
}

const NUMBER = /-?(\d+)(?:\.(\d+))?/y;
const TOKEN = /[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/y;
const KEY = /[a-z*][a-z0-9_\-.*]*/y;
const BYTES = /:[A-Za-z0-9+/=]*:/y;
const WHOLE_KEY = /^[a-z*][a-z0-9_\-.*]*$/;

class Cursor {
  at = 0;
  constructor(readonly text: string) {}

  /** The character at the cursor ('' at the end); a method, so that TypeScript does not narrow it between reads. */
  next(): string {
    return this.text[this.at] ?? '';
  }

  get done(): boolean {
    return this.at >= this.text.length;
  }

  skip(spaces: string): void {
    while (!this.done && spaces.includes(this.next())) this.at += 1;
  }

  /** The match of a sticky pattern at the cursor, consumed; undefined when it does not match there. */
  take(pattern: RegExp): RegExpExecArray | undefined {
    pattern.lastIndex = this.at;
    const match = pattern.exec(this.text);
    if (match === null) return undefined;
    this.at = pattern.lastIndex;
    return match;
  }
}

/** The members of a List or Dictionary field, in order; undefined when the field is malformed or empty. */
export function parseStructuredField(text: string): FieldMember[] | undefined {
  const cursor = new Cursor(text);
  const members: FieldMember[] = [];
  cursor.skip(' \t');
  if (cursor.done) return undefined;
  for (;;) {
    const member = readMember(cursor);
    if (member === undefined) return undefined;
    members.push(member);
    cursor.skip(' \t');
    if (cursor.done) return members;
    if (cursor.next() !== ',') return undefined;
    cursor.at += 1;
    cursor.skip(' \t');
    // A trailing comma is an error (RFC 8941 §4.2.1).
    if (cursor.done) return undefined;
  }
}

function readMember(cursor: Cursor): FieldMember | undefined {
  const start = cursor.at;
  let key: string | undefined;
  let value = readBareItem(cursor);
  if (value === undefined) return undefined;
  // A token followed by `=` is a Dictionary key (only tokens start with a letter or `*`).
  if (cursor.next() === '=' && WHOLE_KEY.test(cursor.text.slice(start, cursor.at))) {
    key = value as string;
    cursor.at += 1;
    value = readBareItem(cursor);
    if (value === undefined) return undefined;
  }
  const params = new Map<string, BareItem>();
  while (cursor.next() === ';') {
    cursor.at += 1;
    cursor.skip(' ');
    const name = cursor.take(KEY)?.[0];
    if (name === undefined) return undefined;
    let paramValue: BareItem | undefined = true;
    if (cursor.next() === '=') {
      cursor.at += 1;
      paramValue = readBareItem(cursor);
      if (paramValue === undefined) return undefined;
    }
    params.set(name, paramValue);
  }
  return { key, value, params, text: cursor.text.slice(start, cursor.at) };
}

function readBareItem(cursor: Cursor): BareItem | undefined {
  const first = cursor.next();
  if (first === '"') return readString(cursor);
  if (first === '-' || (first >= '0' && first <= '9')) {
    const match = cursor.take(NUMBER);
    if (match === undefined) return undefined;
    const [, whole = '', fraction] = match;
    // RFC 8941: at most 15 digits in an Integer; 12 before and 3 after the point in a Decimal.
    if (fraction === undefined ? whole.length > 15 : whole.length > 12 || fraction.length > 3) return undefined;
    return Number(match[0]);
  }
  if (first === '?') {
    const bit = cursor.text[cursor.at + 1];
    if (bit !== '0' && bit !== '1') return undefined;
    cursor.at += 2;
    return bit === '1';
  }
  if (first === ':') return cursor.take(BYTES)?.[0];
  return cursor.take(TOKEN)?.[0];
}

function readString(cursor: Cursor): string | undefined {
  let value = '';
  cursor.at += 1;
  while (!cursor.done) {
    const char = cursor.next();
    cursor.at += 1;
    if (char === '"') return value;
    if (char === '\\') {
      const escaped = cursor.next();
      if (escaped !== '"' && escaped !== '\\') return undefined;
      value += escaped;
      cursor.at += 1;
    } else if (char < ' ' || char > '~') {
      return undefined;
    } else {
      value += char;
    }
  }
  return undefined;
}
