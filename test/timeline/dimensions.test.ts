/**
 * A throttler with rates in dimensions, drawn: its `delivered` events carry cost maps. Each rate in a
 * dimension measures its windows in that dimension's cost; the marks draw the `dimension` asked for, or
 * every dimension's cost summed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { busiestWindows, recordTimeline, renderTimeline, type TimelineEvent } from '../../src/timeline/index.js';
import { createRecorder, msg } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const delivered = (at: number, cost: Extract<TimelineEvent, { type: 'delivered' }>['cost']): TimelineEvent => ({
  type: 'delivered',
  at,
  queuedAt: at,
  cost,
});

describe('the timeline of a throttler with rates in dimensions', () => {
  it('records and draws it: each rate measured in its own dimension, the marks in tokens', () => {
    const target = createRecorder();
    const rate = { requests: '3/1s', tokens: '1000/1s' };
    const input = { rate, strategy: 'sliding-window', target: target.ref } as ThrottlerInput;
    const actor = createActor(throttlerMachine, { input }).start();
    const recording = recordTimeline(actor);
    actor.send({ type: 'QUEUE', message: msg(1), cost: { requests: 1, tokens: 600 } });
    actor.send({ type: 'QUEUE', message: msg(2), cost: { requests: 1, tokens: 300 } });
    actor.send({ type: 'QUEUE', message: msg(3), cost: { requests: 1, tokens: 500 } });
    actor.send({ type: 'QUEUE', message: msg(4), cost: { tokens: 50 } });
    advance(3_000);
    recording.stop();
    actor.stop();
    expect(target.times()).toEqual([0, 0, 1_000, 1_000]);
    const windows = busiestWindows({ events: recording.events, rate });
    expect(windows.map(({ dimension, rate: text, count, deliveries }) => [dimension, text, count, deliveries])).toEqual(
      [
        ['requests', '3/1s', 2, 2],
        ['tokens', '1000/1s', 900, 2],
      ],
    );
    const svg = renderTimeline({ events: recording.events, rate, dimension: 'tokens' });
    expect(svg).toContain('most of requests in any 1s window');
    expect(svg).toContain('2 of 3');
    expect(svg).toContain('most of tokens in any 1s window');
    expect(svg).toContain('900 of 1000');
    // The marks draw tokens: the lane's total is 600 + 300 + 500 + 50.
    expect(svg).toContain('cost 1450');
  });

  it('without `dimension` a cost map is drawn as its dimensions summed; a number counts in every dimension', () => {
    const events = [delivered(0, { requests: 1, tokens: 9 }), delivered(10, 4)];
    const svg = renderTimeline({ events, rate: { requests: '10/1s', tokens: '20/1s' } });
    expect(svg).toContain('cost 14');
    const windows = busiestWindows({ events, rate: { requests: '10/1s', tokens: '20/1s' } });
    expect(windows.map((window) => window.count)).toEqual([5, 13]);
  });

  it('__proto__ as a dimension, from JSON: a name like any other', () => {
    const events = [delivered(0, JSON.parse('{"__proto__": 7, "requests": 1}'))];
    const rate = JSON.parse('{"requests": "10/1s", "__proto__": "20/1s"}');
    const windows = busiestWindows({ events, rate });
    expect(windows.map((window) => [window.dimension, window.count])).toEqual([
      ['requests', 1],
      ['__proto__', 7],
    ]);
    expect(renderTimeline({ events, rate, dimension: '__proto__' })).toContain('7 of 20');
  });

  it('refuses a malformed cost map or dimension, naming the field and the value', () => {
    const bad = (cost: unknown) => () =>
      renderTimeline({ events: [{ type: 'delivered', at: 0, queuedAt: 0, cost } as TimelineEvent] });
    expect(bad({ tokens: -1 })).toThrow('events[0].cost.tokens must be a non-negative integer, got -1');
    expect(bad({ tokens: 1.5 })).toThrow('events[0].cost.tokens must be a non-negative integer, got 1.5');
    expect(bad({ tokens: 0 })).toThrow('events[0].cost must be a cost with at least one dimension above 0');
    expect(bad([3])).toThrow('events[0].cost must be a positive integer, or a map of dimension to cost');
    expect(() => renderTimeline({ events: [], dimension: '' })).toThrow(
      'dimension must be a dimension name (a non-empty string), got ""',
    );
  });
});
