import { ThrottlerOptionError } from '../rate/index.js';
import { COLORS } from './marks.js';
import { drawPanel, LABEL_COLUMN, panelHeight } from './panel.js';
import { type Panel, readPanel, type TimelineInput } from './panel-input.js';
import { SHARE_COLOR } from './shares.js';
import { element, text, textWidth } from './svg.js';
import type { TimeScale } from './time-axis.js';

/** How the picture is drawn. */
export interface TimelineOptions {
  /** Width of each panel in pixels, 480 to 4096. Default 960. */
  width?: number | undefined;
  /** Several panels: `'rows'` (default) one above the other, `'columns'` side by side. */
  layout?: 'rows' | 'columns' | undefined;
  /**
   * Each lane's share of what went in each window of the (first) overall rate's interval, as a strip
   * along its top with the percentage: one lane per tenant shows how a binding limit was shared
   * (`fairness: 'weighted'`). Default false.
   */
  shares?: boolean | undefined;
}

interface DrawOptions {
  width: number;
  layout: 'rows' | 'columns';
  shares: boolean;
}

/** Most panels in one picture: with the lane cap, what bounds its size. */
export const MAX_PANELS = 12;
const RIGHT_MARGIN = 24;
/** Room before the first event, so a mark at time 0 is not hidden by the lane's edge. */
const LEFT_PADDING = 10;
const PANEL_GAP = 18;
const LEGEND_ROW = 20;

const LEGEND: ReadonlyArray<[swatch: string, label: string]> = [
  [element('rect', { width: 14, height: 10, y: -9, fill: COLORS.active, stroke: '#9bb' }), 'active'],
  [element('rect', { width: 14, height: 10, y: -9, fill: COLORS.idle, stroke: '#bbb' }), 'idle'],
  [
    element('line', {
      x1: 1,
      x2: 13,
      y1: -4,
      y2: -4,
      stroke: COLORS.waiting,
      'stroke-width': 2,
      'stroke-linecap': 'round',
    }),
    'waiting (queued → sent)',
  ],
  [element('rect', { x: 5, width: 4, height: 12, y: -10, fill: COLORS.delivered }), 'sent (height and number: cost)'],
  [element('path', { d: 'M3 -8l8 8m0 -8l-8 8', stroke: COLORS.dropped, 'stroke-width': 2 }), 'dropped'],
  [
    element('rect', {
      width: 14,
      height: 10,
      y: -9,
      fill: 'none',
      stroke: COLORS.withinLimit,
      'stroke-dasharray': '4 2',
    }),
    'busiest window: count/limit',
  ],
  [
    element('rect', {
      width: 14,
      height: 10,
      y: -9,
      fill: 'none',
      stroke: COLORS.overLimit,
      'stroke-dasharray': '4 2',
    }),
    'over it',
  ],
];

const SHARE_LEGEND: [string, string] = [
  element('rect', { width: 14, height: 5, y: -7, fill: SHARE_COLOR, 'fill-opacity': '0.6' }),
  'share of each window',
];

/** The legend, wrapped to `width`; returns its markup and height. */
function drawLegend(width: number, top: number, shares: boolean): { svg: string; height: number } {
  let x = 10;
  let y = top + 14;
  let out = '';
  for (const [swatch, label] of shares ? [...LEGEND, SHARE_LEGEND] : LEGEND) {
    const itemWidth = 20 + textWidth(label, 11) + 10;
    if (x + itemWidth > width && x > 10) {
      x = 10;
      y += LEGEND_ROW;
    }
    out +=
      element('g', { transform: `translate(${x} ${y})` }, swatch) + text(label, { x: x + 20, y, 'font-size': '11' });
    x += itemWidth;
  }
  return { svg: element('g', { class: 'legend' }, out), height: y - top + 10 };
}

function readOptions(options: TimelineOptions | undefined): DrawOptions {
  if (options === undefined) return { width: 960, layout: 'rows', shares: false };
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object { width, layout }', options);
  }
  const width = options.width ?? 960;
  if (typeof width !== 'number' || !Number.isInteger(width) || width < 480 || width > 4096) {
    throw new ThrottlerOptionError('width', 'an integer from 480 to 4096', width);
  }
  const layout = options.layout ?? 'rows';
  if (layout !== 'rows' && layout !== 'columns') {
    throw new ThrottlerOptionError('layout', '"rows" or "columns"', layout);
  }
  const shares = options.shares ?? false;
  if (typeof shares !== 'boolean') throw new ThrottlerOptionError('shares', 'true or false', shares);
  return { width, layout, shares };
}

/**
 * Several recordings in one SVG on the same time scale (milliseconds per pixel), each from its own
 * first event: e.g. the `timer` and the `sliding-window` strategy under the same load.
 *
 * Size: at most {@link MAX_PANELS} panels of at most 18 lanes (no channel, 16 channels, the rest in
 * one lane), each lane drawn with a number of elements bounded by the width, never by the number of
 * events: about 60 KB a lane at most at the default width, so about 1 MB a panel, whether a hundred
 * or a million events went in (100,000 deliveries on 40 channels: about 400 KB). O(n log n) in events.
 * Throws a ThrottlerOptionError naming the field (`panels[1].events[7].at`) for bad input.
 */
export function renderTimelines(panels: readonly TimelineInput[], options?: TimelineOptions): string {
  const drawing = readOptions(options);
  if (!Array.isArray(panels) || panels.length === 0 || panels.length > MAX_PANELS) {
    throw new ThrottlerOptionError('panels', `an array of 1 to ${MAX_PANELS} timelines`, panels);
  }
  const read = panels.map((panel, index) => readPanel(panel, `panels[${index}]`));
  return drawDocument(read, drawing);
}

/**
 * A picture of what one throttler did, as an SVG string: time across, a lane per channel, a bar per
 * delivery (its cost when more than 1), waiting as a thin bar from `queuedAt` to `at`, active and
 * idle shading, drops, and for every rate the busiest window with its count against the limit.
 * Pass the events a throttler emitted (see {@link recordTimeline}) and the rates it ran under.
 * Channel names are data: any string is escaped. See {@link renderTimelines} for the size bound.
 */
export function renderTimeline(input: TimelineInput, options?: TimelineOptions): string {
  return drawDocument([readPanel(input, '')], { ...readOptions(options), layout: 'rows' });
}

function drawDocument(panels: readonly Panel[], { width, layout, shares }: DrawOptions): string {
  const span = Math.max(1, ...panels.map((panel) => panel.end - panel.start));
  const plotWidth = width - LABEL_COLUMN - LEFT_PADDING - RIGHT_MARGIN;
  let body = '';
  let offset = 0;
  let tallest = 0;
  for (const panel of panels) {
    const scale: TimeScale = {
      origin: panel.start,
      left: LABEL_COLUMN + LEFT_PADDING,
      width: plotWidth,
      msPerPx: span / plotWidth,
    };
    const [x, y] = layout === 'rows' ? [0, offset] : [offset, 0];
    body += element('g', { class: 'panel', transform: `translate(${x} ${y})` }, drawPanel(panel, scale, width, shares));
    const height = panelHeight(panel);
    tallest = Math.max(tallest, height);
    offset += (layout === 'rows' ? height : width) + PANEL_GAP;
  }
  const totalWidth = layout === 'rows' ? width : offset - PANEL_GAP;
  const legendTop = layout === 'rows' ? offset - PANEL_GAP + 6 : tallest + 6;
  const legend = drawLegend(totalWidth, legendTop, shares);
  const totalHeight = legendTop + legend.height + 6;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${totalWidth}" height="${totalHeight}" ` +
    `viewBox="0 0 ${totalWidth} ${totalHeight}" font-family="Helvetica, Arial, sans-serif" font-size="12" role="img">` +
    '<title>Throttler timeline</title>' +
    element('rect', { width: totalWidth, height: totalHeight, fill: '#fff' }) +
    body +
    legend.svg +
    '</svg>\n'
  );
}
