import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTimeline, renderTimelines, type TimelineEvent } from '../../src/timeline/index.js';
import { MAX_CHANNEL_LANES } from '../../src/timeline/lanes.js';
import { worstWindows } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import { byClass, descendants, parseSvg, type SvgElement } from '../support/svg-document.js';
import { CHANNEL_NAMES, recordedScenario } from './arbitraries.js';

const delivered = (at: number, channel?: string, cost = 1, queuedAt = at): TimelineEvent => ({
  type: 'delivered',
  at,
  queuedAt,
  cost,
  channel,
});

/** The lanes drawn, as [kind, channel name] from their data attributes. */
const lanesOf = (root: SvgElement) =>
  byClass(root, 'lane').map((lane) => [lane.attributes['data-lane'], lane.attributes['data-channel']]);

/** Everything the picture says in text, joined. */
const textOf = (root: SvgElement) =>
  descendants(root)
    .map((element) => element.text)
    .join(' ');

describe('renderTimeline', () => {
  it("keeps a late window's label inside the picture (it ran off the right edge)", () => {
    // Busiest window at the very end of the run: its label would start near the right edge.
    const events = [delivered(0), ...Array.from({ length: 3 }, () => delivered(9_990))];
    const width = 600;
    const root = parseSvg(renderTimeline({ events, rate: '3/1s' }, { width }));
    const label = descendants(root).find((element) => element.name === 'text' && element.text.startsWith('3/3 in 1s'));
    expect(label).toBeDefined();
    const x = Number(label?.attributes.x);
    // Estimated as the renderer does: 0.6 em a character at 11 px.
    expect(x + Array.from(label?.text ?? '').length * 11 * 0.6).toBeLessThanOrEqual(width);
  });

  it('draws, for every rate, a busiest window whose count and start equal the brute-force count', () => {
    fc.assert(
      fc.property(recordedScenario, ({ events, deliveries, rate, channels, config }) => {
        const root = parseSvg(renderTimeline({ events, rate: rate.length > 0 ? rate : undefined, channels }));
        const drawn = byClass(root, 'busiest-window').map((window) => [
          window.attributes['data-channel'],
          Number(window.attributes['data-count']),
          Number(window.attributes['data-limit']),
          window.attributes['data-start'] === undefined ? Number.NaN : Number(window.attributes['data-start']),
        ]);
        const expected = worstWindows(
          config,
          [...deliveries].sort((a, b) => a.at - b.at),
        ).map((window) => [window.channel, window.cost, window.rate.limit, window.start]);
        // Drawn panel by panel (lanes, then the overall windows over them): compare in one order.
        const inOrder = (windows: unknown[][]) => windows.map((window) => JSON.stringify(window)).sort();
        expect(inOrder(drawn)).toEqual(inOrder(expected));
      }),
      { numRuns: runs(150) },
    );
  });

  it('has one lane per channel delivered to or given a rate, after the lane of messages without one', () => {
    fc.assert(
      fc.property(recordedScenario, ({ events, deliveries, channels }) => {
        const root = parseSvg(renderTimeline({ events, channels }));
        const inTimeOrder = [...deliveries].sort((a, b) => a.at - b.at);
        const named = new Set([...Object.keys(channels), ...inTimeOrder.flatMap((d) => d.channel ?? [])]);
        const unnamed = deliveries.some((d) => d.channel === undefined) || named.size === 0;
        expect(lanesOf(root)).toEqual([
          ...(unnamed ? [['none', undefined]] : []),
          ...[...named].map((name) => ['channel', name]),
        ]);
      }),
      { numRuns: runs(100) },
    );
  });

  it('escapes hostile channel names and titles: well-formed, no element but its own, the name shown as text', () => {
    const hostile = [
      '<script>x()</script>',
      '__proto__',
      'constructor',
      'toString',
      '&amp; & &#0;',
      `"quoted" 'single'`,
      ']]><![CDATA[',
      '<!-- -->',
      'tab\tnew\nline',
    ];
    const events = hostile.map((name, index) => delivered(index * 100, name));
    const channels = Object.fromEntries(hostile.map((name) => [name, '1/1s']));
    const root = parseSvg(renderTimeline({ events, rate: '9/1s', channels, title: '<b>"title" & co</b>' }));
    expect(lanesOf(root)).toEqual(hostile.map((name) => ['channel', name]));
    expect(textOf(root)).toContain('<script>x()</script>');
    expect(textOf(root)).toContain('<b>"title" & co</b>');
    const windows = byClass(root, 'busiest-window').filter((window) => window.attributes['data-scope'] === 'channel');
    expect(windows.map((window) => [window.attributes['data-channel'], window.attributes['data-count']])).toEqual(
      hostile.map((name) => [name, '1']),
    );
  });

  it('stays well-formed whatever the strings: control characters and lone surrogates become U+FFFD', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { minLength: 1, maxLength: 5 }), (names) => {
        const root = parseSvg(
          renderTimeline({ events: names.map((name, index) => delivered(index, name)), title: names[0] }),
        );
        expect(byClass(root, 'lane').length).toBe(new Set(names).size);
      }),
      { numRuns: runs(100) },
    );
    const root = parseSvg(renderTimeline({ events: [delivered(0, 'a\u0000b\uD800c\uFFFE')] }));
    expect(byClass(root, 'lane')[0]?.attributes['data-channel']).toBe('a\uFFFDb\uFFFDc\uFFFD');
  });

  it('accepts every channel name the machine accepts, including the empty one', () => {
    for (const name of CHANNEL_NAMES) {
      const root = parseSvg(renderTimeline({ events: [delivered(0, name)], channels: { [name]: '1/1s' } }));
      expect(lanesOf(root)).toEqual([['channel', name]]);
    }
  });

  it('draws waiting as one bar per waiting message while few wait, and shades idle and active', () => {
    const events: TimelineEvent[] = [
      { type: 'activated', at: 0 },
      delivered(0),
      delivered(1000, undefined, 1, 0),
      delivered(1000, undefined, 1, 500),
      { type: 'idled', at: 1500 },
    ];
    const root = parseSvg(renderTimeline({ events, rate: '1/1s' }));
    const waits = byClass(root, 'waits')[0] as SvgElement;
    expect(waits.children.filter((child) => child.name === 'line').map((line) => line.children[0]?.text)).toEqual([
      'waited 1000 ms',
      'waited 500 ms',
    ]);
    const shading = byClass(root, 'activity')[0] as SvgElement;
    expect(shading.children.length).toBe(2); // idle underneath, one active span
    expect(byClass(root, 'busiest-window')[0]?.attributes).toMatchObject({ 'data-count': '2', 'data-limit': '1' });
    expect(textOf(root)).toContain('2 of 1 (over the limit)');
  });

  it('places drops that carry a time and counts the ones that do not', () => {
    const events: TimelineEvent[] = [
      delivered(0),
      { type: 'dropped', at: 10, reason: 'drop-oldest' },
      { type: 'dropped', at: 11, reason: 'drop-oldest' },
      delivered(10_000),
      { type: 'dropped', reason: 'cancelled' },
    ];
    const root = parseSvg(renderTimeline({ events }));
    const drops = byClass(root, 'drops')[0] as SvgElement;
    expect(drops.children.map((cross) => cross.children[0]?.text)).toEqual(['2 drops, at 10–11 ms']);
    expect(textOf(root)).toContain('3 dropped');
    expect(textOf(root)).toContain('dropped (1 undated)');
  });

  it('keeps its size bounded: 100,000 deliveries on 40 channels fit in a bounded picture', () => {
    const picture = (count: number) => {
      const events: TimelineEvent[] = [];
      for (let index = 0; index < count; index++) {
        const at = index * 0.37;
        events.push(
          delivered(at, index % 41 === 0 ? undefined : `channel ${index % 40}`, 1 + (index % 3), at - (index % 97)),
        );
        if (index % 7 === 0) events.push({ type: index % 14 === 0 ? 'activated' : 'idled', at });
        if (index % 11 === 0) events.push({ type: 'dropped', at });
      }
      const channels = Object.fromEntries(Array.from({ length: 40 }, (_, n) => [`channel ${n}`, ['50/1s', '1000/1m']]));
      return renderTimeline({ events, rate: ['500/1s', '10000/1m'], channels });
    };
    const started = performance.now();
    const large = picture(100_000);
    const elapsed = performance.now() - started;
    const root = parseSvg(large);
    // The no-channel lane, MAX_CHANNEL_LANES channels, and one lane for the other 24.
    expect(lanesOf(root).length).toBe(MAX_CHANNEL_LANES + 2);
    expect(lanesOf(root).at(-1)).toEqual(['other', undefined]);
    expect(large.length).toBeLessThan(1_000_000);
    // Bounded by the width, not the events: ten times the events, about the same size.
    expect(large.length).toBeLessThan(picture(10_000).length * 1.5);
    expect(elapsed).toBeLessThan(10_000);
    // Drawn marks per lane: at most one per MARK_SPAN_PX (8) pixels of the 766-pixel plot.
    for (const lane of byClass(root, 'deliveries')) expect(lane.children.length).toBeLessThanOrEqual(97);
  });

  it('puts several recordings on one time scale, in rows or side by side', () => {
    const short = { events: [delivered(0), delivered(1000)], rate: '1/1s', title: 'short' };
    const long = { events: [delivered(5000), delivered(7000)], rate: '1/1s', title: 'long' };
    const rows = parseSvg(renderTimelines([short, long]));
    expect(byClass(rows, 'panel').length).toBe(2);
    expect(rows.attributes.width).toBe('960');
    const columns = parseSvg(renderTimelines([short, long], { layout: 'columns', width: 600 }));
    expect(columns.attributes.width).toBe(String(600 * 2 + 18));
    // Both panels span 2000 ms of the longer one: the short one's second delivery lands mid-plot.
    const xs = byClass(rows, 'deliveries').map((group) =>
      group.children.map((mark) => Number(mark.children[0]?.attributes.x)),
    );
    expect(xs[0]?.[1]).toBeCloseTo(xs[1]?.[1] !== undefined ? ((xs[1][1] as number) + (xs[1][0] as number)) / 2 : 0, 0);
  });
});
