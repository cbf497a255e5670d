import type { ActivityChange } from './events.js';
import { COLORS } from './marks.js';
import { element } from './svg.js';
import { type TimeScale, xOf } from './time-axis.js';

/**
 * Idle and active as background shading from `start` to `end`. Before the first change the state is
 * the opposite of it (a recording that begins with `idled` began while active); repeats are ignored.
 * Active spans closer than a pixel merge, so the output is bounded by the width, not the changes.
 * Without any change nothing is known, and nothing is shaded.
 */
export function drawActivity(
  activity: readonly ActivityChange[],
  scale: TimeScale,
  start: number,
  end: number,
  top: number,
  height: number,
): string {
  const first = activity[0];
  if (first === undefined) return '';
  const spans: Array<{ x0: number; x1: number }> = [];
  const addActive = (from: number, to: number) => {
    const x0 = xOf(scale, from);
    const x1 = xOf(scale, to);
    const last = spans[spans.length - 1];
    if (last !== undefined && x0 - last.x1 < 1) last.x1 = Math.max(last.x1, x1);
    else spans.push({ x0, x1 });
  };
  let active = !first.active;
  let since = start;
  for (const change of activity) {
    if (change.active === active) continue;
    if (active) addActive(since, change.at);
    active = change.active;
    since = change.at;
  }
  if (active) addActive(since, end);
  const x0 = xOf(scale, start);
  let out = element('rect', { x: x0, y: top, width: Math.max(1, xOf(scale, end) - x0), height, fill: COLORS.idle });
  for (const span of spans) {
    out += element('rect', { x: span.x0, y: top, width: Math.max(1, span.x1 - span.x0), height, fill: COLORS.active });
  }
  return element('g', { class: 'activity' }, out);
}
