// The live page: two throttlers side by side, fed the same messages, each card showing what its
// snapshot says and one timeline below drawing both on one time scale. Built by
// `npm run build:page`, served by `npm run page` (examples/browser/serve.ts).
import type { InspectionEvent } from 'xstate';
import { parseRate, parseRates, type StrategyName, ThrottlerOptionError } from '../../../src/index.js';
import { renderTimelines } from '../../../src/timeline/index.js';
import { createLaneCard, type LaneCard } from './lane-card.js';
import type { MetricLine } from './lane-metrics.js';
import { LiveThrottler } from './live-throttler.js';
import { openStatelyInspector } from './stately-inspector.js';

/** What a test (or a curious user in the console) can read: every delivery, to count for themselves. */
export interface LivePageReport {
  strategy: StrategyName;
  rates: readonly string[];
  state: 'idle' | 'active';
  deliveries: Array<{ at: number; cost: number }>;
}

declare global {
  interface Window {
    livePage?: { report(): LivePageReport[]; metrics(): Promise<MetricLine[][]> };
  }
}

const STRATEGIES: readonly StrategyName[] = ['timer', 'sliding-window', 'token-bucket', 'warming-up'];
const MAX_BURST = 10_000;

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found as T;
}

const errorLine = element<HTMLParagraphElement>('error');
const timelineBox = element<HTMLDivElement>('timeline');
const pauseButton = element<HTMLButtonElement>('pause');
const inspectorButton = element<HTMLButtonElement>('open-inspector');
const rateInput = element<HTMLInputElement>('rate');

let rates: readonly string[] = rateList(rateInput.value);
let paused = false;
let inspect: ((event: InspectionEvent) => void) | undefined;
/** The second half of "burst across a tick", while it waits for its moment. */
let pendingBurst: ReturnType<typeof setTimeout> | undefined;

/** `'10/1s, 500/1m'` as the list of rates it names; throws a ThrottlerOptionError naming a bad one. */
function rateList(text: string): string[] {
  const list = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  parseRates(list);
  return list;
}

const cards: LaneCard[] = [];
const lanes: LiveThrottler[] = [];

/** (Re)creates throttler `index`: a fresh actor and a fresh timeline, with the page's rate, pause and inspector. */
function startLane(index: number, strategy: StrategyName): void {
  lanes[index]?.stop();
  const lane = new LiveThrottler({ strategy, rates, inspect, onChange: requestFrame });
  if (paused) lane.pause();
  lanes[index] = lane;
  requestFrame();
}

function restartLanes(): void {
  clearTimeout(pendingBurst);
  for (const [index, lane] of lanes.entries()) startLane(index, lane.strategy);
}

// Drawing: at most once per animation frame, however many events arrive in between; the timeline
// only when a recording changed, the cards every frame while a timer is pending (the countdown).
let frameRequested = false;
let drawnTimeline = '';

function requestFrame(): void {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(drawFrame);
}

function drawFrame(): void {
  frameRequested = false;
  let timerPending = false;
  for (const [index, lane] of lanes.entries()) {
    const view = lane.view();
    cards[index]?.show(view);
    if (view.wakeInMs !== undefined) timerPending = true;
  }
  const width = Math.min(4096, Math.max(480, Math.floor(timelineBox.clientWidth)));
  const key = `${width} ${lanes.map((lane) => `${lane.id}:${lane.version}`).join(' ')}`;
  if (key !== drawnTimeline) {
    drawnTimeline = key;
    timelineBox.innerHTML = renderTimelines(
      lanes.map((lane) => lane.timeline()),
      { width },
    );
  }
  if (timerPending) requestFrame();
}

/** Runs a control's action; a ThrottlerOptionError (a bad rate, a bad burst size) is shown, not thrown. */
function control(id: string, action: () => void | Promise<void>): void {
  element(id).addEventListener('click', async () => {
    try {
      await action();
      errorLine.textContent = '';
    } catch (error) {
      errorLine.textContent = error instanceof Error ? error.message : String(error);
    }
  });
}

function burstSize(): number {
  const text = element<HTMLInputElement>('burst-size').value;
  const size = Number(text);
  if (text.trim() === '' || !Number.isInteger(size) || size < 1 || size > MAX_BURST) {
    throw new ThrottlerOptionError('burst size', `an integer from 1 to ${MAX_BURST}`, text);
  }
  return size;
}

control('burst', () => {
  const size = burstSize();
  for (const lane of lanes) lane.burst(size);
});

// One message starts the timer's voucher period; 2N - 1 more just before its next tick take the
// N - 1 vouchers left and N fresh ones: 2N - 1 within one interval, where a strict window allows N.
control('across-tick', () => {
  const { limit, interval } = parseRate(rates[0] ?? '');
  restartLanes();
  for (const lane of lanes) lane.burst(1);
  pendingBurst = setTimeout(() => {
    for (const lane of lanes) lane.burst(2 * limit - 1);
  }, 0.9 * interval);
});

control('set-rate', () => {
  rates = rateList(rateInput.value);
  for (const lane of lanes) lane.setRates(rates);
  requestFrame();
});

control('pause', () => {
  paused = !paused;
  for (const lane of lanes) {
    if (paused) lane.pause();
    else lane.resume();
  }
  pauseButton.textContent = paused ? 'Resume' : 'Pause';
  pauseButton.setAttribute('aria-pressed', String(paused));
  requestFrame();
});

control('reset', restartLanes);

control('open-inspector', async () => {
  inspectorButton.disabled = true;
  try {
    inspect = await openStatelyInspector();
  } catch (error) {
    inspectorButton.disabled = false;
    throw error;
  }
  inspectorButton.textContent = 'Inspector open';
  // The inspector sees an actor from its creation on: start both again, now inspected.
  restartLanes();
});

// Left the timer, right the strict window: the comparison the page is for.
for (const [index, strategy] of (['timer', 'sliding-window'] as const).entries()) {
  const card = createLaneCard(element('lanes'), index, STRATEGIES, strategy);
  card.strategySelect.addEventListener('change', () => startLane(index, card.strategySelect.value as StrategyName));
  cards.push(card);
  startLane(index, strategy);
}
window.addEventListener('resize', requestFrame);

// Metrics are collected as an exporter would, a few times a second, not every frame.
const METRICS_EVERY_MS = 250;
async function readMetrics(): Promise<MetricLine[][]> {
  return Promise.all(lanes.map((lane) => lane.metrics()));
}
setInterval(async () => {
  const read = await readMetrics();
  for (const [index, lines] of read.entries()) cards[index]?.showMetrics(lines);
}, METRICS_EVERY_MS);
window.livePage = {
  metrics: readMetrics,
  report: () =>
    lanes.map((lane) => {
      const view = lane.view();
      return { strategy: view.strategy, rates: view.rates, state: view.state, deliveries: lane.deliveries() };
    }),
};
