import { describe, expect, it } from 'vitest';
import { type BareItem, parseStructuredField } from '../../src/server-limits/structured-field.js';
import { cpuMsOf, IN_A_BROWSER } from '../support/cpu-time.js';

/** Each member as [key, value, params]: compact enough for a table. */
function members(text: string): Array<[string | undefined, BareItem, Record<string, BareItem>]> | undefined {
  return parseStructuredField(text)?.map((member) => [member.key, member.value, Object.fromEntries(member.params)]);
}

describe('parseStructuredField (the RFC 8941 subset the RateLimit fields need)', () => {
  it.each<[string, ReturnType<typeof members>]>([
    ['"default";r=50;t=30', [[undefined, 'default', { r: 50, t: 30 }]]],
    [
      '"burst";q=100;w=60,"daily";q=1000;w=86400',
      [
        [undefined, 'burst', { q: 100, w: 60 }],
        [undefined, 'daily', { q: 1000, w: 86400 }],
      ],
    ],
    [
      'limit=100, remaining=50, reset=30',
      [
        ['limit', 100, {}],
        ['remaining', 50, {}],
        ['reset', 30, {}],
      ],
    ],
    [
      '10;w=1, 50;w=60',
      [
        [undefined, 10, { w: 1 }],
        [undefined, 50, { w: 60 }],
      ],
    ],
    ['  "a";r=0;t=5 \t', [[undefined, 'a', { r: 0, t: 5 }]]],
    ['"a"; r=0; flag', [[undefined, 'a', { r: 0, flag: true }]]],
    ['"esc \\"q\\" \\\\"', [[undefined, 'esc "q" \\', {}]]],
    ['token;x=?1;y=?0;z=-1.5;pk=:cHM=:', [[undefined, 'token', { x: true, y: false, z: -1.5, pk: ':cHM=:' }]]],
    ['"a";t=1;t=2', [[undefined, 'a', { t: 2 }]]],
    ['123456789012345', [[undefined, 123456789012345, {}]]],
  ])('reads %j', (text, expected) => {
    expect(members(text)).toEqual(expected);
  });

  it.each([
    '',
    '   ',
    '"a",',
    ',"a"',
    '"a";',
    '"a";R=1',
    '"a";r=',
    '"unterminated',
    '"bad \\n escape"',
    '"tab\tinside"',
    '1234567890123456',
    '1.2345',
    '1234567890123.5',
    '?2',
    '"a" "b"',
    '(inner list)',
    '"a";r=1 ;t=2',
    '=5',
  ])('refuses %j as a whole', (text) => {
    expect(parseStructuredField(text)).toBeUndefined();
  });

  // Skipped in the browser project, which gives no CPU time (cpu-time.ts).
  it.skipIf(IN_A_BROWSER)('is linear: sixteen times the members take about sixteen times as long, not 256', () => {
    // Relative, in CPU time (cpu-time.ts), the best of five runs, and a wide margin: sizes that stay out
    // of old-generation GC (at 40,000 members it made a linear parser read 27x for 8x the members);
    // quadratic work would be 256x.
    const members = (count: number) => Array.from({ length: count }, (_, n) => `"p${n}";q=${n};w=1`).join(', ');
    const fastest = (text: string, count: number): number => {
      let best = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 5; run++) {
        best = Math.min(
          best,
          cpuMsOf(() => expect(parseStructuredField(text)).toHaveLength(count)),
        );
      }
      return best;
    };
    const small = fastest(members(1_000), 1_000);
    const large = fastest(members(16_000), 16_000);
    expect(large / Math.max(small, 0.2)).toBeLessThan(80);
  });
});
