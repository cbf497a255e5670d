import type { Delivery } from './events.js';
import type { Lane } from './lanes.js';
import { element, text, textWidth, tooltip } from './svg.js';
import { clampX, type TimeScale, xOf } from './time-axis.js';

/** Narrowest a share's strip may be; longer runs of windows are merged, so the output is bounded by the width. */
const MIN_SHARE_PX = 6;
/** Narrowest strip that carries its percentage as text. */
const LABELLED_PX = 30;
export const SHARE_COLOR = '#6a3d9a';

/** The windows the shares are counted in: consecutive spans of the overall interval from the panel's start. */
export interface ShareWindows {
  readonly start: number;
  /** One strip's span: the overall interval, or a whole number of them when the picture is too narrow. */
  readonly span: number;
  /** Cost delivered in each span, every lane together. */
  readonly totals: number[];
}

/**
 * The spans and what every lane together delivered in each: the denominators of the lanes' shares
 * (a tenant's share of the overall limit, per window, as weighted fairness promises it). O(deliveries).
 */
export function shareWindows(
  deliveries: readonly Delivery[],
  interval: number,
  start: number,
  end: number,
  scale: TimeScale,
): ShareWindows {
  // A delivery at `end` opens a window of its own: the last window holds [end, end + interval).
  const windows = Math.floor((end - start) / interval) + 1;
  const most = Math.max(1, Math.floor(scale.width / MIN_SHARE_PX));
  const span = interval * Math.ceil(windows / most);
  const totals = new Array<number>(Math.floor((end - start) / span) + 1).fill(0);
  for (const { at, cost } of deliveries) add(totals, indexOf(at, start, span, totals.length), cost);
  return { start, span, totals };
}

function add(sums: number[], index: number, cost: number): void {
  sums[index] = (sums[index] as number) + cost;
}

function indexOf(at: number, start: number, span: number, count: number): number {
  return Math.min(count - 1, Math.max(0, Math.floor((at - start) / span)));
}

/**
 * A lane's share of each window as a strip along the lane's top: its opacity is the share, its
 * percentage written on it where it is wide enough; each strip carries its numbers for readers and
 * tests (`data-cost`, `data-total`). Windows in which nothing went are left blank.
 */
export function drawShares(lane: Lane, windows: ShareWindows, scale: TimeScale, top: number): string {
  const costs = new Array<number>(windows.totals.length).fill(0);
  for (const { at, cost } of lane.deliveries) add(costs, indexOf(at, windows.start, windows.span, costs.length), cost);
  let out = '';
  costs.forEach((cost, index) => {
    const total = windows.totals[index] as number;
    if (total === 0) return;
    const from = windows.start + index * windows.span;
    const x0 = clampX(scale, xOf(scale, from));
    const x1 = clampX(scale, xOf(scale, from + windows.span));
    if (x1 - x0 < 1) return;
    const share = cost / total;
    const percent = `${Math.round(share * 100)}%`;
    let strip = element('rect', {
      x: x0,
      y: top + 1,
      width: Math.max(1, x1 - x0 - 1),
      height: 5,
      fill: SHARE_COLOR,
      'fill-opacity': (0.08 + 0.92 * share).toFixed(2),
    });
    strip += tooltip(`${percent}: ${cost} of ${total}`);
    if (x1 - x0 >= LABELLED_PX && x1 - x0 >= textWidth(percent, 9) + 4) {
      strip += text(percent, { x: x0 + 2, y: top + 14, 'font-size': '9', fill: SHARE_COLOR });
    }
    const data = {
      class: 'share',
      'data-from': String(from),
      'data-to': String(from + windows.span),
      'data-cost': String(cost),
      'data-total': String(total),
    };
    out += element('g', data, strip);
  });
  return out;
}
