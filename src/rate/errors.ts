/**
 * The error every validation in this library throws: a TypeError (like
 * p-throttle's) whose message names the option and the offending value, so a
 * misconfiguration reads as `rate.limit must be a positive integer, got 0`.
 */
export class ThrottlerOptionError extends TypeError {
  override name = 'ThrottlerOptionError';
  /** The option path that was wrong, e.g. `rate.limit` or `channels.search`. */
  readonly option: string;
  /** The value that was given. */
  readonly value: unknown;

  constructor(option: string, requirement: string, value: unknown) {
    super(`${option} must be ${requirement}, got ${describeValue(value)}`);
    this.option = option;
    this.value = value;
  }
}

/** Renders a bad value so that `0`, `'0'`, `NaN` and `undefined` are told apart in messages. */
export function describeValue(value: unknown): string {
  // A huge string (a key from a request) would make a huge message: its start and its length say enough.
  if (typeof value === 'string')
    return value.length > 100
      ? `${JSON.stringify(value.slice(0, 60))}... (${value.length} characters)`
      : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'function') return 'a function';
  try {
    if (Array.isArray(value)) return `an array of ${value.length}`;
    const json = JSON.stringify(value);
    return json.length > 80 ? `${json.slice(0, 77)}...` : json;
  } catch {
    // A Proxy whose traps throw (or a revoked one) can be named, not read.
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return 'an object that throws when read';
    }
  }
}
