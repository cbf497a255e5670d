import { element, text } from './svg.js';

/** Maps times on the throttler's clock to x, with `origin` at `left`. */
export interface TimeScale {
  readonly origin: number;
  readonly left: number;
  readonly width: number;
  /** Milliseconds per pixel; shared by panels drawn together so they compare at a glance. */
  readonly msPerPx: number;
}

export function xOf(scale: TimeScale, time: number): number {
  return scale.left + (time - scale.origin) / scale.msPerPx;
}

/** An x clamped to the plot. */
export function clampX(scale: TimeScale, x: number): number {
  return Math.min(Math.max(x, scale.left), scale.left + scale.width);
}

/** A round step (1, 2 or 5 times a power of ten) that gives about `count` ticks over `span`. */
function niceStep(span: number, count: number): number {
  const rough = span / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const factor of [1, 2, 5]) if (factor * power >= rough) return factor * power;
  return 10 * power;
}

/** A tick label: milliseconds for short recordings, seconds from ten seconds on. */
function formatTick(ms: number, step: number, inSeconds: boolean): string {
  const value = inSeconds ? ms / 1000 : ms;
  const unitStep = inSeconds ? step / 1000 : step;
  const decimals = Math.max(0, -Math.floor(Math.log10(unitStep) + 1e-9));
  return `${value.toFixed(decimals)} ${inSeconds ? 's' : 'ms'}`;
}

/**
 * The time axis under a panel, and faint grid lines up through its lanes. Times are shown from the
 * panel's first event (the throttler's clock has an arbitrary origin).
 */
export function drawTimeAxis(scale: TimeScale, gridTop: number, axisY: number): string {
  const span = scale.width * scale.msPerPx;
  const step = niceStep(span, Math.max(2, Math.floor(scale.width / 90)));
  const inSeconds = span >= 10_000;
  let out = element('line', { x1: scale.left, y1: axisY, x2: scale.left + scale.width, y2: axisY, stroke: '#555' });
  for (let index = 0; index * step <= span * (1 + 1e-9); index++) {
    const tick = index * step;
    const x = scale.left + tick / scale.msPerPx;
    out += element('line', { x1: x, y1: gridTop, x2: x, y2: axisY, stroke: '#000', 'stroke-opacity': '0.07' });
    out += element('line', { x1: x, y1: axisY, x2: x, y2: axisY + 4, stroke: '#555' });
    out += text(formatTick(tick, step, inSeconds), {
      x,
      y: axisY + 15,
      'text-anchor': 'middle',
      'font-size': '10',
      fill: '#444',
    });
  }
  return out;
}
