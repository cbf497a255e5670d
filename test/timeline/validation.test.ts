import { describe, expect, it } from 'vitest';
import {
  busiestWindows,
  renderTimeline,
  renderTimelines,
  type TimelineEvent,
  type TimelineInput,
} from '../../src/timeline/index.js';
import { expectOptionError } from '../support/option-error.js';

const ok: TimelineEvent = { type: 'delivered', at: 10, queuedAt: 5, cost: 1, channel: 'search' };
/** Renders one panel whose second event is `bad`: how a user would pass a corrupted log. */
const withEvent = (bad: unknown) => () => renderTimeline({ events: [ok, bad] } as unknown as TimelineInput);

describe('timeline input validation: every error names the field and the value', () => {
  it.each([
    [{ ...ok, at: Number.NaN }, 'events[1].at', 'a finite time in milliseconds', 'NaN', Number.NaN],
    [{ ...ok, at: '10' }, 'events[1].at', 'a finite time in milliseconds', '"10"', '10'],
    [{ ...ok, queuedAt: undefined }, 'events[1].queuedAt', 'a finite time in milliseconds', 'undefined', undefined],
    [{ ...ok, queuedAt: 11 }, 'events[1].queuedAt', 'no later than at (10)', '11', 11],
    [{ ...ok, cost: 0 }, 'events[1].cost', 'a positive integer, or a map of dimension to cost', '0', 0],
    [{ ...ok, cost: 1.5 }, 'events[1].cost', 'a positive integer, or a map of dimension to cost', '1.5', 1.5],
    [{ ...ok, channel: 7 }, 'events[1].channel', 'a string or undefined', '7', 7],
    [{ ...ok, channel: null }, 'events[1].channel', 'a string or undefined', 'null', null],
    [{ type: 'activated' }, 'events[1].at', 'a finite time in milliseconds', 'undefined', undefined],
    [
      { type: 'idled', at: Number.POSITIVE_INFINITY },
      'events[1].at',
      'a finite time in milliseconds',
      'Infinity',
      Number.POSITIVE_INFINITY,
    ],
    [{ type: 'dropped', at: null }, 'events[1].at', 'a finite time in milliseconds', 'null', null],
    [null, 'events[1]', 'an event object with a type', 'null', null],
    [
      { type: 'DELIVERED' },
      'events[1].type',
      '"delivered", "dropped", "activated" or "idled" (or another throttler event, which is ignored)',
      '"DELIVERED"',
      'DELIVERED',
    ],
  ])('event %j: %s', (bad, option, requirement, shown, value) => {
    expectOptionError(withEvent(bad), { option, message: `${option} must be ${requirement}, got ${shown}`, value });
  });

  it('events must be an array', () => {
    expectOptionError(() => renderTimeline({ events: 'all of them' } as unknown as TimelineInput), {
      option: 'events',
      message: 'events must be an array of recorded events, got "all of them"',
      value: 'all of them',
    });
  });

  it('rates are read as the machine reads them, named by channel', () => {
    expectOptionError(() => renderTimeline({ events: [ok], rate: '0/1s' }), {
      option: 'rate.limit',
      message: 'rate.limit must be a positive integer, got "0"',
      value: '0',
    });
    expectOptionError(() => busiestWindows({ events: [ok], channels: { __proto__x: '3/1s', search: '3 per s' } }), {
      option: 'channels.search',
      message: 'channels.search must be a rate such as "10/1s", "100/1m" or { limit, interval }, got "3 per s"',
      value: '3 per s',
    });
    expectOptionError(() => renderTimeline({ events: [ok], channels: ['3/1s'] } as unknown as TimelineInput), {
      option: 'channels',
      message: 'channels must be an object of channel name to rate, got an array of 1',
      value: ['3/1s'],
    });
  });

  it('in several panels, the panel is named too', () => {
    expectOptionError(() => renderTimelines([{ events: [ok] }, { events: [ok, { ...ok, cost: -1 }] }]), {
      option: 'panels[1].events[1].cost',
      message: 'panels[1].events[1].cost must be a positive integer, or a map of dimension to cost, got -1',
      value: -1,
    });
    expectOptionError(() => renderTimelines([]), {
      option: 'panels',
      message: 'panels must be an array of 1 to 12 timelines, got an array of 0',
      value: [],
    });
  });

  it('options: width, layout, title', () => {
    expectOptionError(() => renderTimeline({ events: [] }, { width: 100 }), {
      option: 'width',
      message: 'width must be an integer from 480 to 4096, got 100',
      value: 100,
    });
    expectOptionError(() => renderTimelines([{ events: [] }], { layout: 'grid' } as unknown as { layout: 'rows' }), {
      option: 'layout',
      message: 'layout must be "rows" or "columns", got "grid"',
      value: 'grid',
    });
    expectOptionError(() => renderTimeline({ events: [], title: 42 } as unknown as TimelineInput), {
      option: 'title',
      message: 'title must be a string, got 42',
      value: 42,
    });
    expectOptionError(() => renderTimeline(undefined as unknown as TimelineInput), {
      option: 'input',
      message: 'input must be an object { events, rate, channels, title }, got undefined',
      value: undefined,
    });
  });

  it('ignores the throttler events that carry no timing: a log from actor.on("*") is fine as it is', () => {
    const events = [
      ok,
      { type: 'rejected', reason: 'overflow' },
      { type: 'targetLost', at: 3 },
      { type: 'invalidEvent' },
      { type: 'queued', at: 0, cost: 1 },
      { type: 'dequeued', at: 1, queuedAt: 0, cost: 1 },
    ];
    expect(busiestWindows({ events, rate: '1/1s' } as unknown as TimelineInput)[0]?.count).toBe(1);
  });

  it('draws an empty recording as an empty lane', () => {
    expect(renderTimeline({ events: [], rate: '1/1s' })).toContain('0 delivered, 0 dropped');
  });
});
