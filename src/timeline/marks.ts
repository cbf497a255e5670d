import type { Delivery } from './events.js';
import { element, num, text, textWidth, tooltip } from './svg.js';
import { type TimeScale, xOf } from './time-axis.js';

/** Marks closer than this many pixels are drawn as one, with their total: bounded output, no overlap. */
export const MARK_SPAN_PX = 8;
/** Above this many waiting messages in a lane, waits are drawn as a count per pixel column. */
export const MAX_WAIT_BARS = 40;
const WAIT_SLOTS = 5;

export const COLORS = {
  delivered: '#1f5fa8',
  waiting: '#7d8fa6',
  waitingArea: '#b9c5d4',
  dropped: '#c62828',
  active: '#dcebfa',
  idle: '#efefef',
  withinLimit: '#2e7d32',
  overLimit: '#c62828',
} as const;

interface Cluster {
  x0: number;
  x1: number;
  cost: number;
  count: number;
  from: number;
  to: number;
  /** Index of its first item; the rest follow it. */
  first: number;
}

/** Groups time-sorted items into runs no wider than MARK_SPAN_PX: at most width / MARK_SPAN_PX + 1 of them. */
function cluster(items: ReadonlyArray<{ at: number; cost?: number }>, scale: TimeScale): Cluster[] {
  const clusters: Cluster[] = [];
  let current: Cluster | undefined;
  items.forEach((item, index) => {
    const x = xOf(scale, item.at);
    const cost = item.cost ?? 1;
    if (current !== undefined && x < current.x0 + MARK_SPAN_PX) {
      current.x1 = x;
      current.cost += cost;
      current.count += 1;
      current.to = item.at;
    } else {
      current = { x0: x, x1: x, cost, count: 1, from: item.at, to: item.at, first: index };
      clusters.push(current);
    }
  });
  return clusters;
}

function describe(group: Cluster, origin: number, noun: string): string {
  const from = num(group.from - origin);
  const when = group.count === 1 ? `at ${from} ms` : `at ${from}–${num(group.to - origin)} ms`;
  return `${group.count} ${noun}${group.count === 1 ? '' : 's'}, cost ${group.cost}, ${when}`;
}

/** Up to this much cost in one mark, each delivery is its own block (cost units high); past it, one bar. */
const MOST_STACKED = 6;
const UNIT_PX = 5;
const MARK_WIDTH = 5;

/**
 * Deliveries standing on `baseline`. While no mark carries more than MOST_STACKED cost, each delivery
 * is a block `cost` units high, stacked where they fall together, so a reader counts them; otherwise
 * each mark is one bar as tall as its cost relative to the lane's largest. Every mark carrying more
 * than 1 is labelled with its total cost where the label has room.
 */
export function drawDeliveries(deliveries: readonly Delivery[], scale: TimeScale, baseline: number): string {
  const groups = cluster(deliveries, scale);
  const mostCost = groups.reduce((most, group) => Math.max(most, group.cost), 1);
  const stacked = mostCost <= MOST_STACKED;
  let bars = '';
  let labels = '';
  let labelsEndAt = Number.NEGATIVE_INFINITY;
  for (const group of groups) {
    // Centred on the mark's middle and narrower than MARK_SPAN_PX, so neighbours barely touch.
    const width = MARK_WIDTH;
    const x = (group.x0 + group.x1) / 2 - width / 2;
    const height = stacked ? group.cost * UNIT_PX : 4 + 14 * (group.cost / mostCost);
    let blocks = '';
    if (stacked) {
      let top = baseline;
      for (let index = group.first; index < group.first + group.count; index++) {
        const blockHeight = (deliveries[index] as Delivery).cost * UNIT_PX;
        top -= blockHeight;
        // A white gap between blocks, so two deliveries of cost 1 read apart from one of cost 2.
        blocks += element('rect', { x, y: top, width, height: blockHeight - 1 });
      }
    } else {
      blocks = element('rect', { x, y: baseline - height, width, height });
    }
    bars += element('g', {}, blocks + tooltip(describe(group, scale.origin, 'delivery')));
    if (group.cost === 1) continue;
    const label = String(group.cost);
    const centre = (group.x0 + group.x1) / 2;
    const half = textWidth(label, 10) / 2;
    if (centre - half < labelsEndAt + 2) continue;
    labelsEndAt = centre + half;
    labels += text(label, { x: centre, y: baseline - height - 3, 'text-anchor': 'middle' });
  }
  return (
    element('g', { class: 'deliveries', fill: COLORS.delivered }, bars) +
    element('g', { 'font-size': '10', 'font-weight': 'bold', fill: '#173f6e' }, labels)
  );
}

/** Greedy slots for wait bars, or undefined when they need more than WAIT_SLOTS rows. */
function waitSlots(waits: readonly Delivery[], scale: TimeScale): number[] | undefined {
  const order = waits.map((_, index) => index).sort((a, b) => waits[a]!.queuedAt - waits[b]!.queuedAt);
  const slotEnds: number[] = [];
  const slots = new Array<number>(waits.length);
  for (const index of order) {
    const wait = waits[index]!;
    const start = xOf(scale, wait.queuedAt);
    let slot = slotEnds.findIndex((end) => end + 3 <= start);
    if (slot === -1) {
      if (slotEnds.length === WAIT_SLOTS) return undefined;
      slot = slotEnds.length;
    }
    slotEnds[slot] = xOf(scale, wait.at);
    slots[index] = slot;
  }
  return slots;
}

/**
 * Waiting time, queuedAt to at: one thin bar per message while they fit in a few rows; otherwise,
 * per pixel column, how many messages were waiting (a difference array, O(n + width)).
 */
export function drawWaits(
  deliveries: readonly Delivery[],
  scale: TimeScale,
  top: number,
  height: number,
): { svg: string; mostWaiting: number | undefined } {
  const waits = deliveries.filter((delivery) => delivery.at > delivery.queuedAt);
  const slots = waits.length <= MAX_WAIT_BARS ? waitSlots(waits, scale) : undefined;
  if (slots !== undefined) {
    let bars = '';
    waits.forEach((wait, index) => {
      const y = top + 3 + (slots[index] as number) * 4;
      const x1 = xOf(scale, wait.queuedAt);
      const x2 = Math.max(xOf(scale, wait.at), x1 + 1);
      bars += element('line', { x1, y1: y, x2, y2: y }, tooltip(`waited ${num(wait.at - wait.queuedAt)} ms`));
    });
    return {
      svg: element(
        'g',
        { class: 'waits', stroke: COLORS.waiting, 'stroke-width': '2', 'stroke-linecap': 'round' },
        bars,
      ),
      mostWaiting: undefined,
    };
  }
  const columns = Math.ceil(scale.width) + 1;
  const change = new Int32Array(columns + 1);
  const column = (time: number) => Math.min(columns - 1, Math.max(0, Math.floor(xOf(scale, time) - scale.left)));
  for (const wait of waits) {
    change[column(wait.queuedAt)]! += 1;
    change[column(wait.at) + 1]! -= 1;
  }
  const waiting = new Int32Array(columns);
  let running = 0;
  let most = 0;
  for (let index = 0; index < columns; index++) {
    running += change[index]!;
    waiting[index] = running;
    if (running > most) most = running;
  }
  // A step outline along the base: a point only where the count changes.
  const base = top + height;
  const yOf = (count: number) => (count === 0 ? base : base - 2 - (height - 2) * (count / most));
  let path = `M${num(scale.left)} ${num(base)}`;
  let previous = 0;
  for (let index = 0; index < columns; index++) {
    const count = waiting[index]!;
    if (count === previous) continue;
    path += `H${num(scale.left + index)}V${num(yOf(count))}`;
    previous = count;
  }
  path += `H${num(scale.left + columns)}V${num(base)}Z`;
  return {
    svg: most === 0 ? '' : element('path', { class: 'waits', d: path, fill: COLORS.waitingArea }),
    mostWaiting: most,
  };
}

/** Drops as red crosses at their time, with a count where several fall together. */
export function drawDrops(times: readonly number[], scale: TimeScale, y: number): string {
  let crosses = '';
  let labels = '';
  let labelsEndAt = Number.NEGATIVE_INFINITY;
  for (const group of cluster(
    times.map((at) => ({ at })),
    scale,
  )) {
    const x = (group.x0 + group.x1) / 2;
    crosses += element(
      'path',
      { d: `M${num(x - 3.5)} ${num(y - 3.5)}l7 7m0 -7l-7 7` },
      tooltip(describe(group, scale.origin, 'drop').replace(/, cost \d+/, '')),
    );
    if (group.count === 1) continue;
    const label = String(group.count);
    const half = textWidth(label, 9) / 2;
    if (x - half < labelsEndAt + 2) continue;
    labelsEndAt = x + half;
    labels += text(label, { x, y: y - 6, 'text-anchor': 'middle' });
  }
  return (
    element('g', { class: 'drops', stroke: COLORS.dropped, 'stroke-width': '1.5' }, crosses) +
    element('g', { 'font-size': '9', fill: COLORS.dropped }, labels)
  );
}
