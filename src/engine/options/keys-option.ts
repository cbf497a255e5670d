import {
  type DurationInput,
  parseDuration,
  parseRates,
  type Rate,
  type RatesInput,
  ThrottlerOptionError,
} from '../../rate/index.js';

/** The `keys` option: the template rate for keys that appear at run time, and how long an idle key is kept. */
export interface KeysOption {
  rate: RatesInput;
  /** Kept at least this long after its last use (`'5m'` or ms); never less than its longest interval. Default 0. */
  idleAfter?: DurationInput | undefined;
}

/** The `keys` option after validation. */
export interface KeyTemplate {
  readonly rates: Rate[];
  readonly idleAfter: number;
}

/** The longest key a message may name: a longer one is refused rather than held in memory (hash it yourself). */
export const MAX_KEY_LENGTH = 1024;

/** Whether a name not in `channels` can be a key: a non-empty string of at most MAX_KEY_LENGTH characters. */
export function isKeyName(name: unknown): name is string {
  return typeof name === 'string' && name.length > 0 && name.length <= MAX_KEY_LENGTH;
}

export function resolveKeys(input: unknown): KeyTemplate | undefined {
  if (input === undefined) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ThrottlerOptionError(
      'keys',
      'an object { rate, idleAfter? }, e.g. { rate: "5/1s", idleAfter: "5m" }',
      input,
    );
  }
  const { rate, idleAfter } = input as Partial<KeysOption>;
  return {
    rates: parseRates(rate, 'keys.rate'),
    idleAfter: idleAfter === undefined || idleAfter === 0 ? 0 : parseDuration(idleAfter, 'keys.idleAfter'),
  };
}

/**
 * The error for a channel name that is not configured, listing the names that are; with `keys`, for a
 * name that is no key either (not a string, empty, or too long).
 */
export function unknownChannelError(
  channel: unknown,
  configured: Iterable<string>,
  keys = false,
): ThrottlerOptionError {
  const known = [...configured].map((name) => `"${name}"`).join(', ');
  const key = `a key (a non-empty string of at most ${MAX_KEY_LENGTH} characters)`;
  const requirement = keys
    ? known
      ? `one of ${known} or ${key}`
      : key
    : known
      ? `one of ${known}`
      : 'undefined (no channels are configured)';
  return new ThrottlerOptionError('channel', requirement, channel);
}
