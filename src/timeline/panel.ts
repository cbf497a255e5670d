import { formatRate } from '../rate/index.js';
import { drawActivity } from './activity.js';
import type { BusiestWindow } from './busiest-window.js';
import type { Lane } from './lanes.js';
import { COLORS, drawDeliveries, drawDrops, drawWaits } from './marks.js';
import type { Panel } from './panel-input.js';
import { drawShares, type ShareWindows, shareWindows } from './shares.js';
import { element, escapeText, shorten, text, textWidth } from './svg.js';
import { clampX, drawTimeAxis, type TimeScale, xOf } from './time-axis.js';

const TITLE_HEIGHT = 46;
const WINDOW_ROW = 16;
const LANE_HEIGHT = 62;
const DROP_LANE_HEIGHT = 30;
const AXIS_HEIGHT = 30;
export const LABEL_COLUMN = 170;

/** A length of time as the rates write it: `1s`, `500ms`. */
export function formatDuration(ms: number): string {
  return formatRate({ limit: 1, interval: ms }).slice(2);
}

export function panelHeight(panel: Panel): number {
  const overall = panel.windows.filter((window) => window.scope === 'overall').length;
  const drops = panel.recorded.dropTimes.length + panel.recorded.undatedDrops > 0 ? DROP_LANE_HEIGHT : 0;
  return TITLE_HEIGHT + overall * WINDOW_ROW + panel.lanes.length * LANE_HEIGHT + drops + AXIS_HEIGHT;
}

function windowColor(window: BusiestWindow): string {
  return window.count > window.limit ? COLORS.overLimit : COLORS.withinLimit;
}

/**
 * The busiest window as a dashed box over `top`..`bottom`, carrying its numbers for readers and tests,
 * and its label apart: the box goes under the marks, so they stay visible, and the label over them.
 */
function drawWindow(
  window: BusiestWindow,
  scale: TimeScale,
  top: number,
  bottom: number,
  label: string,
): { box: string; tag: string } {
  const color = windowColor(window);
  const data = {
    class: 'busiest-window',
    'data-scope': window.scope,
    'data-channel': window.channel,
    'data-rate': window.rate,
    'data-count': String(window.count),
    'data-limit': String(window.limit),
    'data-start': window.start === undefined ? undefined : String(window.start),
  };
  if (window.start === undefined) return { box: element('g', data), tag: '' };
  const x0 = clampX(scale, xOf(scale, window.start));
  const x1 = Math.max(x0 + 2, clampX(scale, xOf(scale, window.start + window.interval)));
  const box = element('rect', {
    x: x0,
    y: top,
    width: x1 - x0,
    height: bottom - top,
    fill: color,
    'fill-opacity': window.scope === 'overall' ? '0.04' : '0.07',
    stroke: color,
    'stroke-width': '1.5',
    'stroke-dasharray': '5 3',
  });
  // Beside the box's left edge, unless that would run past the plot's right edge (a window late in
  // the run): then it ends there, still over the box or as close to it as the picture allows.
  const right = scale.left + scale.width;
  const labelX = Math.max(scale.left, Math.min(x0 + 4, right - textWidth(label, 11) - 4));
  const tag = text(label, {
    x: labelX,
    y: top + 12,
    fill: color,
    'font-weight': 'bold',
    'font-size': '11',
    stroke: '#fff',
    'stroke-width': '3',
    'paint-order': 'stroke',
  });
  return { box: element('g', data, box), tag };
}

function laneTitle(lane: Lane, onlyLane: boolean): { name: string; italic: boolean } {
  if (lane.kind === 'none') return { name: onlyLane ? 'all messages' : 'no channel', italic: true };
  if (lane.kind === 'other') return { name: `+${lane.channelCount} other channels`, italic: true };
  return { name: shorten(lane.name as string, 22), italic: false };
}

function drawLane(lane: Lane, panel: Panel, scale: TimeScale, top: number, shares?: ShareWindows): string {
  const { name, italic } = laneTitle(lane, panel.lanes.length === 1);
  const cost = lane.deliveries.reduce((sum, delivery) => sum + delivery.cost, 0);
  const rates = lane.rates.map(formatRate).join(', ');
  const waits = drawWaits(lane.deliveries, scale, top + 6, 22);
  let out = text(name, { x: 10, y: top + 18, 'font-weight': 'bold', 'font-style': italic ? 'italic' : undefined });
  const details = [
    rates ? shorten(`rate ${rates}`, 28) : undefined,
    `${lane.deliveries.length} sent${cost === lane.deliveries.length ? '' : `, cost ${cost}`}`,
    waits.mostWaiting === undefined ? undefined : `shaded: up to ${waits.mostWaiting} waiting`,
  ].filter((detail) => detail !== undefined);
  details.forEach((detail, index) => {
    out += text(detail, { x: 10, y: top + 31 + index * 12, 'font-size': '10', fill: '#555' });
  });
  const windows = panel.windows.filter((window) => window.scope === 'channel' && window.channel === lane.name);
  let tags = '';
  windows.forEach((window, index) => {
    const label = `${window.count}/${window.limit}${windows.length > 1 ? ` per ${formatDuration(window.interval)}` : ''}`;
    const { box, tag } = drawWindow(window, scale, top + 2 + index * 2, top + LANE_HEIGHT - 2, label);
    out += box;
    tags += tag;
  });
  out += waits.svg + drawDeliveries(lane.deliveries, scale, top + LANE_HEIGHT - 6) + tags;
  if (shares !== undefined) out += drawShares(lane, shares, scale, top);
  out += element('line', {
    x1: 0,
    y1: top + LANE_HEIGHT,
    x2: scale.left + scale.width,
    y2: top + LANE_HEIGHT,
    stroke: '#ccc',
  });
  const kind = {
    class: 'lane',
    'data-lane': lane.kind,
    'data-channel': lane.name,
    'data-deliveries': String(lane.deliveries.length),
  };
  return element('g', kind, out);
}

/** The header: title, and what happened against each overall rate, in words. */
function drawHeader(panel: Panel, width: number): string {
  const { deliveries, dropTimes, undatedDrops } = panel.recorded;
  // xml:space keeps the spaces at the edges of each tspan, which SVG would otherwise collapse.
  let summary = `<tspan>${deliveries.length} delivered, ${dropTimes.length + undatedDrops} dropped</tspan>`;
  for (const window of panel.windows) {
    if (window.scope !== 'overall') continue;
    const verdict = window.count > window.limit ? ' (over the limit)' : '';
    const of = window.dimension === undefined ? '' : ` of ${window.dimension}`;
    summary += `<tspan> · most${escapeText(of)} in any ${escapeText(formatDuration(window.interval))} window: </tspan>`;
    summary += element(
      'tspan',
      { fill: windowColor(window), 'font-weight': 'bold' },
      `${window.count} of ${window.limit}${verdict}`,
    );
  }
  return (
    text(shorten(panel.title ?? 'Throttler timeline', Math.floor(width / 8)), {
      x: 10,
      y: 18,
      'font-size': '14',
      'font-weight': 'bold',
    }) + element('text', { x: 10, y: 36, 'font-size': '11', fill: '#333', 'xml:space': 'preserve' }, summary)
  );
}

/** One panel at the origin, `width` wide; its time scale is shared with the other panels. */
export function drawPanel(panel: Panel, scale: TimeScale, width: number, withShares = false): string {
  const overall = panel.windows.filter((window) => window.scope === 'overall');
  const interval = overall[0]?.interval;
  const shares =
    withShares && interval !== undefined
      ? shareWindows(panel.recorded.deliveries, interval, panel.start, panel.end, scale)
      : undefined;
  const lanesTop = TITLE_HEIGHT + overall.length * WINDOW_ROW;
  const lanesBottom = lanesTop + panel.lanes.length * LANE_HEIGHT;
  const { dropTimes, undatedDrops } = panel.recorded;
  const dropsBottom = lanesBottom + (dropTimes.length + undatedDrops > 0 ? DROP_LANE_HEIGHT : 0);
  let out = drawHeader(panel, width);
  out += drawActivity(panel.recorded.activity, scale, panel.start, panel.end, lanesTop, lanesBottom - lanesTop);
  out += drawTimeAxis(scale, lanesTop, dropsBottom + 4);
  let tags = '';
  overall.forEach((window, index) => {
    const label = `${window.count}/${window.limit} in ${formatDuration(window.interval)} (overall ${window.rate})`;
    const { box, tag } = drawWindow(window, scale, TITLE_HEIGHT + index * WINDOW_ROW - 2, lanesBottom, label);
    out += box;
    tags += tag;
  });
  panel.lanes.forEach((lane, index) => {
    out += drawLane(lane, panel, scale, lanesTop + index * LANE_HEIGHT, shares);
  });
  out += tags;
  if (dropsBottom > lanesBottom) {
    const undated = undatedDrops > 0 ? ` (${undatedDrops} undated)` : '';
    out += text(`dropped${undated}`, { x: 10, y: lanesBottom + 18, 'font-weight': 'bold', fill: COLORS.dropped });
    out += drawDrops(dropTimes, scale, lanesBottom + 19);
  }
  return out;
}
