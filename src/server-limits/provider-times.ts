/**
 * The two ways language-model providers write when a quota is full again:
 *
 * - OpenAI: `x-ratelimit-reset-requests: 1s`, `x-ratelimit-reset-tokens: 6m0s`, a duration as Go's
 *   `time.Duration.String()` writes it (https://platform.openai.com/docs/guides/rate-limits, "Rate
 *   limits in headers"; the format is Go's, https://pkg.go.dev/time#ParseDuration);
 * - Anthropic: `anthropic-ratelimit-requests-reset: 2025-01-15T14:24:00Z`, an RFC 3339 date-time
 *   (https://docs.anthropic.com/en/api/rate-limits, now
 *   https://platform.claude.com/docs/en/api/rate-limits, "Response headers"; RFC 3339 §5.6).
 *
 * Each reader returns undefined for text it cannot read; none throws, whatever the text, and each is
 * linear in the text's length.
 */

/** Milliseconds per unit, as Go names them: `µs` is U+00B5 (Go writes it), `μs` U+03BC (Go reads it too). */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const DIGITS = /[0-9]/;

/**
 * A Go duration (`6m0s`, `1s`, `20ms`, `1h2m3.5s`, `.5s`) in ms, or undefined. A sign is refused (a
 * reset is never negative), as is a number without its unit, except a bare `0` as Go reads it and a
 * bare number of seconds (`20`, `0.5`), which OpenAI-compatible servers (Azure OpenAI) send instead.
 */
export function readGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1_000;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    const start = at;
    while (at < trimmed.length && DIGITS.test(trimmed[at] as string)) at += 1;
    const whole = at - start;
    let fraction = 0;
    if (trimmed[at] === '.') {
      at += 1;
      const from = at;
      while (at < trimmed.length && DIGITS.test(trimmed[at] as string)) at += 1;
      fraction = at - from;
    }
    // Go: `.5s` and `5.s` are durations, `.s` is not.
    if (whole === 0 && fraction === 0) return undefined;
    const number = Number(trimmed.slice(start, at));
    const unitStart = at;
    while (at < trimmed.length && !DIGITS.test(trimmed[at] as string) && trimmed[at] !== '.') at += 1;
    const name = trimmed.slice(unitStart, at);
    // Own names only: `__proto__` is no unit.
    if (!Object.hasOwn(UNIT_MS, name)) return undefined;
    total += number * (UNIT_MS[name] as number);
  }
  return Number.isFinite(total) ? total : undefined;
}

/**
 * `2025-01-15T14:24:00Z`, `2025-01-15T14:24:00.250+01:00`: RFC 3339's date-time (`T` or `t` or a space
 * between date and time, as §5.6 allows; `Z` or an offset), in ms since the epoch; undefined for anything
 * else, a day its month lacks (`02-30`) or a field out of range included. `Date.parse` is not used: it
 * reads many other forms and differs between engines.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function readRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text.trim());
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);
  // RFC 3339 allows a leap second (60); offsets up to 23:59.
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return undefined;
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return undefined;
  const fraction = match[7] === undefined ? 0 : Number(`0.${match[7]}`) * 1_000;
  const sign = match[9] === '-' ? -1 : 1;
  const offset = match[8] === undefined ? sign * (offsetHours * 60 + offsetMinutes) * 60_000 : 0;
  return date.getTime() + ((hour * 60 + minute) * 60 + second) * 1_000 + fraction - offset;
}
