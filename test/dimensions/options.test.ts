import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/engine/options/options.js';
import { parseRates, ThrottlerOptionError } from '../../src/index.js';

/** The option path and value a ThrottlerOptionError names, or 'resolved'. */
function refusal(options: Record<string, unknown>): [string, unknown] | 'resolved' {
  try {
    resolveOptions({ strategy: 'sliding-window', ...options } as never);
  } catch (error) {
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    return [(error as ThrottlerOptionError).option, (error as ThrottlerOptionError).value];
  }
  return 'resolved';
}

describe('rates in dimensions: every field checked, naming its path and value', () => {
  it('parses a dimension map into rates labelled with their dimension, each dimension’s together', () => {
    expect(parseRates({ requests: '500/1m', tokens: ['30000/1m', '1000000/1d'] })).toEqual([
      { limit: 500, interval: 60_000, dimension: 'requests' },
      { limit: 30_000, interval: 60_000, dimension: 'tokens' },
      { limit: 1_000_000, interval: 86_400_000, dimension: 'tokens' },
    ]);
    // Rates read back (a saved snapshot's) are grouped by dimension again.
    const flat = [
      { limit: 1, interval: 1000, dimension: 'a' },
      { limit: 2, interval: 1000, dimension: 'b' },
      { limit: 3, interval: 1000, dimension: 'a' },
    ];
    expect(parseRates(flat).map((rate) => rate.limit)).toEqual([1, 3, 2]);
    // One rate: a numeric limit, or an interval.
    expect(parseRates({ limit: 5, interval: '1s' })).toEqual([{ limit: 5, interval: 1000 }]);
  });

  it('refuses a bad dimension map', () => {
    expect(refusal({ rate: {} })).toEqual(['rate', {}]);
    expect(refusal({ rate: { '': '1/1s' } })).toEqual(['rate.', '1/1s']);
    expect(refusal({ rate: { tokens: 'x' } })).toEqual(['rate.tokens', 'x']);
    expect(refusal({ rate: { tokens: ['1/1s', 0] } })).toEqual(['rate.tokens[1]', 0]);
    expect(refusal({ rate: { tokens: { inner: '1/1s' } } })).toEqual(['rate.tokens', { inner: '1/1s' }]);
    expect(refusal({ rate: { tokens: { limit: 0, interval: 1000 } } })).toEqual(['rate.tokens.limit', 0]);
    expect(
      refusal({
        rate: [
          { limit: 1, interval: 1, dimension: 'a' },
          { limit: 1, interval: 1 },
        ],
      })[0],
    ).toBe('rate[1].dimension');
    expect(refusal({ rate: [{ limit: 1, interval: 1, dimension: '' }] })).toEqual(['rate[0].dimension', '']);
  });

  it('refuses channels and keys that name another dimension, or none, or dimensions without any in rate', () => {
    const rate = { requests: '5/1s', tokens: '100/1s' };
    expect(refusal({ rate, channels: { a: { images: '1/1s' } } })[0]).toBe('channels.a.images');
    expect(refusal({ rate, channels: { a: '1/1s' } })).toEqual(['channels.a', { limit: 1, interval: 1000 }]);
    expect(refusal({ rate, keys: { rate: { images: '1/1s' } } })[0]).toBe('keys.rate.images');
    expect(refusal({ rate: '5/1s', channels: { a: { tokens: '1/1s' } } })[0]).toBe('channels.a.tokens');
    expect(refusal({ rate, channels: { a: { tokens: '1/1s' } }, keys: { rate: { requests: '1/1s' } } })).toBe(
      'resolved',
    );
  });

  it('takes __proto__ as a dimension, in the rate and in a channel', () => {
    const rate = JSON.parse('{"__proto__": "2/1s", "tokens": "10/1s"}');
    const channels = { a: JSON.parse('{"__proto__": "1/1s"}') };
    expect(refusal({ rate, channels })).toBe('resolved');
    expect(resolveOptions({ rate, channels } as never).dimensions?.names).toEqual(['__proto__', 'tokens']);
  });
});
