import type { StrategyName } from '../../../src/index.js';
import type { MetricLine } from './lane-metrics.js';
import type { ThrottlerView } from './live-throttler.js';

/** One throttler's card on the page: its strategy picker and what its snapshot says, kept current by show(). */
export interface LaneCard {
  readonly strategySelect: HTMLSelectElement;
  show(view: ThrottlerView): void;
  /** Its OpenTelemetry metrics as last collected. */
  showMetrics(lines: readonly MetricLine[]): void;
}

function showMetricLines(element: HTMLElement, lines: readonly MetricLine[]): void {
  element.replaceChildren();
  for (const line of lines) {
    const row = child(element, 'tr', { 'data-metric': line.name, 'data-attributes': line.attributes });
    child(row, 'td', {}, line.name.replace(/^throttler\./, ''));
    child(row, 'td', {}, line.attributes);
    // Shown to 3 decimals at most (a ratio of 2/3 reads 0.667); data-value keeps the exact number for tests.
    const shown = String(Math.round(line.value * 1000) / 1000);
    const value = line.mean === undefined ? shown : `${shown} (mean ${(line.mean * 1000).toFixed(0)} ms)`;
    child(row, 'td', { class: 'value', 'data-value': String(line.value) }, value);
  }
}

const FIELDS = [
  ['state', 'State'],
  ['rates', 'Rate'],
  ['delivered', 'Delivered'],
  ['queued', 'Waiting'],
  ['dropped', 'Dropped / rejected'],
  ['wake', 'Next wake-up'],
  ['busiest', 'Most in any window'],
  ['over', 'Windows over the limit'],
] as const;

type Field = (typeof FIELDS)[number][0];

function child<K extends keyof HTMLElementTagNameMap>(
  parent: HTMLElement,
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  if (text !== undefined) element.textContent = text;
  parent.append(element);
  return element;
}

/** Sets text only when it changed: the card is refreshed every animation frame while a timer is pending. */
function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

function showBusiest(element: HTMLElement, view: ThrottlerView): void {
  const key = view.audit.map((line) => `${line.rate}:${line.most}`).join(' ');
  if (element.dataset.key === key) return;
  element.dataset.key = key;
  element.replaceChildren();
  for (const line of view.audit) {
    const over = line.most > line.limit;
    child(
      element,
      'span',
      {
        class: `window ${over ? 'over' : 'within'}`,
        'data-rate': line.rate,
        'data-count': String(line.most),
        'data-limit': String(line.limit),
        title: over ? 'more than the limit in one window' : 'within the limit',
      },
      `${line.most} / ${line.limit} (${line.rate})`,
    );
  }
}

function showQueue(element: HTMLElement, view: ThrottlerView): void {
  const { queued } = view.counts;
  const key = `${view.firstWaiting[0] ?? ''}:${queued}`;
  if (element.dataset.key === key) return;
  element.dataset.key = key;
  element.replaceChildren();
  if (queued === 0) child(element, 'span', { class: 'empty' }, 'nothing waiting');
  for (const n of view.firstWaiting) child(element, 'span', { class: 'message' }, `#${n}`);
  if (queued > view.firstWaiting.length) {
    child(element, 'span', { class: 'more' }, `+${queued - view.firstWaiting.length} more`);
  }
}

function describeWake(view: ThrottlerView): string {
  if (view.wakeInMs !== undefined) return `in ${Math.ceil(view.wakeInMs)} ms`;
  if (view.paused && view.counts.queued > 0) return 'none (paused until resumed)';
  return 'none';
}

/** Builds the card for throttler `index` into `container`, offering `strategies`, with `strategy` chosen. */
export function createLaneCard(
  container: HTMLElement,
  index: number,
  strategies: readonly StrategyName[],
  strategy: StrategyName,
): LaneCard {
  const card = child(container, 'article', { class: 'lane', 'data-lane': String(index) });
  const label = child(child(card, 'header'), 'label', {}, 'Strategy ');
  const strategySelect = child(label, 'select', { 'data-field': 'strategy' });
  for (const name of strategies) child(strategySelect, 'option', { value: name }, name);
  strategySelect.value = strategy;

  const list = child(card, 'dl');
  const fields = {} as Record<Field, HTMLElement>;
  for (const [field, title] of FIELDS) {
    child(list, 'dt', {}, title);
    fields[field] = child(list, 'dd', { 'data-field': field });
  }
  child(card, 'h3', {}, 'Queue');
  const queue = child(card, 'div', { class: 'queue', 'data-field': 'queue' });
  child(card, 'h3', {}, 'Metrics (xstate-throttler/otel, read through the OpenTelemetry SDK)');
  const metrics = child(child(card, 'table', { class: 'metrics' }), 'tbody', { 'data-field': 'metrics' });

  return {
    strategySelect,
    show(view) {
      const state = view.paused ? `${view.state}, paused` : view.state;
      setText(fields.state, state);
      fields.state.className = `state ${view.state}${view.paused ? ' paused' : ''}`;
      fields.state.dataset.state = view.state;
      setText(fields.rates, view.rates.join(' and '));
      setText(fields.delivered, String(view.counts.delivered));
      setText(fields.queued, String(view.counts.queued));
      setText(fields.dropped, `${view.counts.dropped} / ${view.counts.rejected}`);
      setText(fields.wake, describeWake(view));
      showBusiest(fields.busiest, view);
      const over = view.audit.reduce((sum, line) => sum + line.windowsOver, 0);
      setText(fields.over, String(over));
      fields.over.className = over > 0 ? 'over' : 'within';
      showQueue(queue, view);
    },
    showMetrics(lines) {
      showMetricLines(metrics, lines);
    },
  };
}
