import { describe, expect, it } from 'vitest';
import { type ReadServerLimitsOptions, readServerLimits } from '../../src/server-limits/index.js';
import { expectOptionError } from '../support/option-error.js';

/** Lets a test hand an option what a JavaScript caller could, whatever the types say. */
const untyped = (options: unknown) => options as ReadServerLimitsOptions;
const ask = (options: unknown) => () => readServerLimits({ 'retry-after': '1' }, untyped(options));

describe('readServerLimits: bad options throw a ThrottlerOptionError naming them', () => {
  it.each<[string, unknown, string, unknown]>([
    ['options', 'fast', 'options must be an object such as { maxPause: "1h" }, or undefined, got "fast"', 'fast'],
    ['status', { status: 42 }, 'status must be an HTTP status, an integer from 100 to 599, got 42', 42],
    ['status', { status: 429.5 }, 'status must be an HTTP status, an integer from 100 to 599, got 429.5', 429.5],
    ['now', { now: 5 }, 'now must be a function returning the time in ms since the epoch, got 5', 5],
    [
      'now',
      { now: () => Number.NaN },
      'now must be a function returning a finite time in ms since the epoch, got NaN',
      Number.NaN,
    ],
    ['maxPause', { maxPause: 0 }, 'maxPause must be a positive, finite duration in milliseconds, got 0', 0],
    [
      'maxPause',
      { maxPause: Number.POSITIVE_INFINITY },
      'maxPause must be a positive, finite duration in milliseconds, got Infinity',
      Number.POSITIVE_INFINITY,
    ],
    [
      'maxPause',
      { maxPause: 'long' },
      'maxPause must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "long"',
      'long',
    ],
    [
      'pauseOn429',
      { pauseOn429: -1 },
      'pauseOn429 must be a duration >= 0 in ms, or a string such as "1s", got -1',
      -1,
    ],
    [
      'pauseOn429',
      { pauseOn429: Number.NaN },
      'pauseOn429 must be a duration >= 0 in ms, or a string such as "1s", got NaN',
      Number.NaN,
    ],
    ['maxWindow', { maxWindow: -5 }, 'maxWindow must be a positive, finite duration in milliseconds, got -5', -5],
    ['channel', { channel: 5 }, 'channel must be a channel name (a string), got 5', 5],
    [
      'ceiling',
      { ceiling: 'fast' },
      `ceiling must be 'configured' (the default), 'none', or rates such as "10/1s", ["10/1s", "500/1m"] or { limit, interval }, got "fast"`,
      'fast',
    ],
    ['ceiling.limit', { ceiling: { limit: 0, interval: 1_000 } }, 'ceiling.limit must be a positive integer, got 0', 0],
    ['followPolicy', { followPolicy: 'yes' }, 'followPolicy must be true or false, got "yes"', 'yes'],
  ])('%s: %j', (option, options, message, value) => {
    expectOptionError(ask(options), { message, option, value });
  });

  it.each<[unknown, string]>([
    [null, 'null'],
    [undefined, 'undefined'],
    ['Retry-After: 5', '"Retry-After: 5"'],
    [429, '429'],
  ])('a response that is no response or headers at all: %j', (response, shown) => {
    expectOptionError(() => readServerLimits(response as never), {
      message: `response must be a fetch Response, a Headers, a Map or array of [name, value] pairs, or an object of header names to values, got ${shown}`,
      option: 'response',
      value: response,
    });
  });

  it('takes durations as strings, and pauseOn429 0', () => {
    const limits = readServerLimits(
      { 'retry-after': '7200' },
      { status: 429, maxPause: '2h', pauseOn429: 0, now: () => 0 },
    );
    expect(limits.pause).toEqual({ type: 'PAUSE', duration: 7_200_000 });
  });
});
