/**
 * The providers' reset formats as properties: Go durations against a simple reference parser (one
 * regular expression, then a sum), and RFC 3339 against the engine's own reading of what
 * `toISOString` writes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readGoDuration, readRfc3339 } from '../../src/server-limits/provider-times.js';
import { runs } from '../support/property-runs.js';

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};
const UNIT_NAMES = Object.keys(UNITS);
const COMPONENT = '(\\d+\\.?\\d*|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)';

/** The oracle: the whole text must be components (or a bare number of seconds); their sum. */
function reference(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1_000;
  if (!new RegExp(`^(?:${COMPONENT})+$`).test(trimmed)) return undefined;
  let sum = 0;
  for (const match of trimmed.matchAll(new RegExp(COMPONENT, 'g'))) {
    sum += Number(match[1]) * (UNITS[match[2] as string] as number);
  }
  return Number.isFinite(sum) ? sum : undefined;
}

function close(actual: number | undefined, expected: number | undefined): boolean {
  if (actual === undefined || expected === undefined) return actual === expected;
  return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
}

const number = fc.oneof(
  fc.nat({ max: 100_000 }).map(String),
  fc.tuple(fc.nat({ max: 9_999 }), fc.stringMatching(/^\d{1,4}$/)).map(([whole, fraction]) => `${whole}.${fraction}`),
  fc.stringMatching(/^\d{1,3}$/).map((fraction) => `.${fraction}`),
  fc.nat({ max: 99 }).map((whole) => `${whole}.`),
);
const component = fc.tuple(number, fc.constantFrom(...UNIT_NAMES));

/** How Go's Duration.String() writes a whole number of ms: `1h2m3.5s`, `20ms`, `0s`. */
function goString(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1_000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1_000;
  const secondsText = `${seconds}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  return minutes > 0 ? `${minutes}m${secondsText}` : secondsText;
}

describe('readGoDuration', () => {
  it('agrees with the reference on every well-formed duration', () => {
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 6 }), (parts) => {
        const text = parts.map(([value, unit]) => `${value}${unit}`).join('');
        const expected = reference(text);
        expect(expected).toBeDefined();
        expect(close(readGoDuration(text), expected)).toBe(true);
      }),
    );
  });

  it('agrees with the reference on any text of its alphabet, malformed included, and never throws', () => {
    const alphabet = fc.constantFrom(...'0123456789.hmsunµμ -+x,'.split(''), 'ms', 'µs', '1s', '__proto__');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 14 }), (chars) => {
        const text = chars.join('');
        expect(close(readGoDuration(text), reference(text))).toBe(true);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it("reads back what Go's Duration.String() writes for any whole number of ms under a day", () => {
    fc.assert(
      fc.property(fc.nat({ max: 86_400_000 }), (ms) => {
        expect(close(readGoDuration(goString(ms)), ms)).toBe(true);
      }),
    );
  });

  it('the examples of the providers and of Go', () => {
    expect(['6m0s', '1s', '20ms', '1h2m3.5s', '1.5h', '300ms', '2h45m', '1µs', '0'].map(readGoDuration)).toEqual([
      360_000, 1_000, 20, 3_723_500, 5_400_000, 300, 9_900_000, 0.001, 0,
    ]);
    for (const bad of ['', '-1s', '+1s', '1x', 's', '.s', '1..5s', '1s ms', '__proto__', '1__proto__']) {
      expect(readGoDuration(bad)).toBeUndefined();
    }
    // A bare number is seconds, as Azure OpenAI sends it.
    expect(readGoDuration('1')).toBe(1_000);
  });
});

describe('readRfc3339', () => {
  it('reads what toISOString writes, to the millisecond, and the same moment written with an offset', () => {
    const year2000 = 946_684_800_000;
    const year2100 = 4_102_444_800_000;
    fc.assert(
      fc.property(
        fc.integer({ min: year2000, max: year2100 }),
        fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
        (time, offsetMinutes) => {
          expect(readRfc3339(new Date(time).toISOString())).toBe(time);
          const local = new Date(time + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const size = Math.abs(offsetMinutes);
          const offset = `${sign}${String(Math.floor(size / 60)).padStart(2, '0')}:${String(size % 60).padStart(2, '0')}`;
          expect(readRfc3339(`${local}${offset}`)).toBe(time);
        },
      ),
    );
  });

  it('refuses what is not RFC 3339, or a day its month lacks', () => {
    for (const bad of [
      '2025-02-29T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-01-01T24:00:00Z',
      '2025-01-01T00:00:00',
      '1736950980',
      'Wed, 15 Jan 2025 14:23:00 GMT',
      '2025-01-01T00:00:00+24:00',
    ]) {
      expect(readRfc3339(bad)).toBeUndefined();
    }
    expect(readRfc3339('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
  });
});
