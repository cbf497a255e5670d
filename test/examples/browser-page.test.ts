/**
 * The live page (examples/browser/) in headless Chromium, driven as a user would: built with
 * esbuild, served on the loopback interface, its buttons clicked, its DOM read. What the page
 * shows as the most deliveries in any window is checked against a brute-force count over the
 * delivery times it exposes (window.livePage.report()), and the sliding window against its limit.
 * Real timers at 3 per second: about 10 s. It leaves a screenshot in the temp folder, or where
 * LIVE_PAGE_SCREENSHOT says (`npm run screenshot:page` writes docs/live-page.png, the README's).
 * The Stately inspector button is never clicked (it opens stately.ai; there is no network here):
 * only checked to exist, and its package to stay out of what the page loads until then.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPage, type PageBuild } from '../../examples/browser/build.js';
import { type PageServer, servePage } from '../../examples/browser/serve.js';
import type { MetricLine } from '../../examples/browser/src/lane-metrics.js';
import type { LivePageReport } from '../../examples/browser/src/main.js';
import { chromiumArgs, findChromium, missingChromiumIsAnError, NO_CHROMIUM } from '../support/chromium.js';
import { bruteForceFindings } from '../support/window-oracle.js';

const executablePath = findChromium();
const screenshotPath = process.env.LIVE_PAGE_SCREENSHOT ?? join(tmpdir(), 'xstate-throttler-live-page.png');
const TIMER = 0;
const SLIDING_WINDOW = 1;
const INTERVAL_MS = 1000;
const LIMIT = 3;
/** Ten messages at 3 per second take 3 s; a busy machine gets three times that. */
const DRAIN_MS = 10_000;

/** What one throttler's card shows. */
interface CardText {
  state: string;
  rates: string;
  delivered: number;
  queued: number;
  wake: string;
  queue: string;
  busiest: Array<{ count: number; limit: number; rate: string }>;
  /** How many windows went over the limit, as the throttler's audit counted them. */
  over: number;
}

function readCard(page: Page, lane: number): Promise<CardText> {
  return page.evaluate((index) => {
    const card = document.querySelector(`.lane[data-lane="${index}"]`);
    const field = (name: string) => card?.querySelector(`[data-field="${name}"]`)?.textContent ?? '';
    const busiest = Array.from(card?.querySelectorAll('[data-field="busiest"] .window') ?? []).map((window) => {
      const [, count, limit, rate] = /^(\d+) \/ (\d+) \((.+)\)$/.exec(window.textContent ?? '') ?? [];
      return { count: Number(count), limit: Number(limit), rate: rate ?? '' };
    });
    return {
      state: field('state'),
      rates: field('rates'),
      delivered: Number(field('delivered')),
      queued: Number(field('queued')),
      wake: field('wake'),
      queue: field('queue'),
      busiest,
      over: Number(field('over')),
    };
  }, lane);
}

const report = (page: Page): Promise<LivePageReport[]> => page.evaluate(() => window.livePage?.report() ?? []);

/** The most cost in any window [t, t + interval), trying every delivery as t: the brute force. */
function mostInAnyWindow(deliveries: ReadonlyArray<{ at: number; cost: number }>, interval: number): number {
  let most = 0;
  for (const { at: start } of deliveries) {
    let cost = 0;
    for (const delivery of deliveries)
      if (delivery.at >= start && delivery.at < start + interval) cost += delivery.cost;
    most = Math.max(most, cost);
  }
  return most;
}

/**
 * How many deliveries closed a window (t - interval, t] holding more than `limit`, those at t's own time all
 * in it, as the audit counts (test/support/window-oracle.ts): the brute force.
 */
function windowsOverLimit(
  deliveries: ReadonlyArray<{ at: number; cost: number }>,
  interval: number,
  limit: number,
): number {
  return bruteForceFindings(deliveries, limit, interval).windowsOver;
}

/** Waits until both throttlers are idle with `delivered` messages each, as their cards show. */
async function untilBothDelivered(page: Page, delivered: number): Promise<void> {
  await expect
    .poll(async () => [await readCard(page, TIMER), await readCard(page, SLIDING_WINDOW)], { timeout: DRAIN_MS })
    .toEqual([
      expect.objectContaining({ state: 'idle', delivered, queued: 0 }),
      expect.objectContaining({ state: 'idle', delivered, queued: 0 }),
    ]);
}

/** The card's busiest window equals the brute-force count over the page's own delivery times. */
async function expectShownWindowsCounted(page: Page): Promise<number[]> {
  const lanes = await report(page);
  const most: number[] = [];
  for (const [index, lane] of lanes.entries()) {
    const card = await readCard(page, index);
    const counted = mostInAnyWindow(lane.deliveries, INTERVAL_MS);
    expect(card.busiest, `${lane.strategy}: what the card shows`).toEqual([
      { count: counted, limit: LIMIT, rate: '3/1s' },
    ]);
    expect(card.over, `${lane.strategy}: the windows over the limit`).toBe(
      windowsOverLimit(lane.deliveries, INTERVAL_MS, LIMIT),
    );
    most.push(counted);
  }
  return most;
}

/** A metric's value in what the page collected through the OpenTelemetry SDK (0 for a series not there). */
function metricValue(lines: readonly MetricLine[], name: string, attributes = ''): number {
  return lines.find((line) => line.name === name && line.attributes === attributes)?.value ?? 0;
}

/**
 * What each card's metrics (xstate-throttler/otel through the real SDK, in Chromium) say after the
 * burst, against what the card shows: 10 delivered, those that waited timed, none waiting now, and the audit.
 */
async function expectMetricsAgree(page: Page): Promise<void> {
  const read = await page.evaluate(() => window.livePage?.metrics() ?? Promise.resolve([]));
  expect(read).toHaveLength(2);
  for (const [lane, lines] of read.entries()) {
    const card = await readCard(page, lane);
    expect(metricValue(lines, 'throttler.messages', 'result=delivered'), `lane ${lane}`).toBe(card.delivered);
    // Seven had to wait (the timer's activation may queue the first three too); each that waited is timed.
    const queued = metricValue(lines, 'throttler.messages', 'result=queued');
    expect(queued, `lane ${lane}`).toBeGreaterThanOrEqual(7);
    expect(metricValue(lines, 'throttler.message.time_in_queue'), `lane ${lane}`).toBe(queued);
    expect(metricValue(lines, 'throttler.queued_messages'), `lane ${lane}`).toBe(0);
    // The audit's figures, as metrics: the fullest window against the limit, and the windows over it.
    const [busiest] = card.busiest;
    const audited = `rate=${busiest?.rate} scope=overall`;
    expect(metricValue(lines, 'throttler.window.peak_utilization', audited)).toBe((busiest?.count ?? 0) / LIMIT);
    expect(metricValue(lines, 'throttler.window.overruns', audited)).toBe(card.over);
  }
  // The card shows them too, once the page has collected since.
  await expect
    .poll(() => page.locator('[data-field="metrics"] tr[data-metric="throttler.messages"]').count())
    .toBeGreaterThan(0);
}

function describeLivePage(executablePath: string): void {
  describe('the live page in headless Chromium', () => {
    let buildDir: string | undefined;
    let built: PageBuild;
    let server: PageServer;
    let browser: Browser;
    let page: Page;
    const requested: string[] = [];
    const pageErrors: string[] = [];

    beforeAll(async () => {
      // A build of its own: a second test run's build would replace the shared dist/ under this page.
      buildDir = mkdtempSync(join(tmpdir(), 'xstate-throttler-page-'));
      built = await buildPage(buildDir);
      server = await servePage(0, buildDir);
      browser = await chromium.launch({ executablePath, headless: true, args: [...chromiumArgs(), '--headless'] });
      page = await browser.newPage({ viewport: { width: 1100, height: 820 } });
      page.on('request', (request) => requested.push(new URL(request.url()).pathname));
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
      await page.goto(server.url);
      await page.waitForSelector('.lane[data-lane="1"] [data-field="state"]:not(:empty)');
    });

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      if (buildDir !== undefined) rmSync(buildDir, { recursive: true, force: true });
    });

    it('loads the Stately inspector only when its button is pressed', async () => {
      expect(built.loadedAtStart).toContain(built.entry);
      expect(built.loadedAtStart).not.toContain(built.inspectorChunk);
      for (const chunk of built.loadedAtStart) expect(requested).toContain(`/${chunk}`);
      expect(requested).not.toContain(`/${built.inspectorChunk}`);
      const button = page.locator('#open-inspector');
      expect(await button.textContent()).toBe('Open the Stately inspector');
      expect(await button.isEnabled()).toBe(true);
    });

    it('shows a burst going out: state, queue, wake-up, counts, and the busiest window against the limit', async () => {
      await page.fill('#burst-size', '10');
      await page.click('#burst');
      // The first three go at once; seven wait for the next second.
      for (const lane of [TIMER, SLIDING_WINDOW]) {
        await expect.poll(() => readCard(page, lane)).toMatchObject({ state: 'active', delivered: 3, queued: 7 });
        const card = await readCard(page, lane);
        expect(card.queue).toBe('#4#5#6#7#8#9#10');
        const [, wakeInMs] = /^in (\d+) ms$/.exec(card.wake) ?? [];
        expect(Number(wakeInMs)).toBeGreaterThan(0);
        expect(Number(wakeInMs)).toBeLessThanOrEqual(INTERVAL_MS);
      }
      await untilBothDelivered(page, 10);
      const [timer, slidingWindow] = await expectShownWindowsCounted(page);
      expect(slidingWindow).toBe(LIMIT);
      // The timer refills on its own tick: a late wake-up followed by a punctual one can put two
      // periods' vouchers in one window, never more.
      expect(timer).toBeGreaterThanOrEqual(LIMIT);
      expect(timer).toBeLessThanOrEqual(2 * LIMIT);
      const timeline = await page.locator('#timeline svg').count();
      expect(timeline).toBe(1);
      expect(await page.locator('#timeline').textContent()).toContain('10 delivered');
      await expectMetricsAgree(page);
    });

    it('refuses a bad burst size and a bad rate with a message naming the value, and changes the rate', async () => {
      await page.fill('#burst-size', 'ten');
      await page.click('#burst');
      await expect
        .poll(() => page.textContent('#error'))
        .toBe('burst size must be an integer from 1 to 10000, got "ten"');
      await page.fill('#burst-size', '10');

      await page.fill('#rate', '0/1s');
      await page.click('#set-rate');
      await expect.poll(() => page.textContent('#error')).toMatch(/limit must be a positive integer, got "0"/);
      expect((await readCard(page, SLIDING_WINDOW)).rates).toBe('3/1s');

      await page.fill('#rate', '5/1s, 100/1m');
      await page.click('#set-rate');
      await expect.poll(() => page.textContent('#error')).toBe('');
      await expect.poll(async () => (await readCard(page, TIMER)).rates).toBe('5/1s and 100/1m');
      expect((await readCard(page, SLIDING_WINDOW)).busiest.map(({ rate }) => rate)).toEqual(['5/1s', '100/1m']);

      await page.fill('#rate', '3/1s');
      await page.click('#set-rate');
      await expect.poll(async () => (await readCard(page, SLIDING_WINDOW)).rates).toBe('3/1s');
    });

    it('delivers nothing while paused and goes on when resumed', async () => {
      await page.click('#pause');
      await page.fill('#burst-size', '2');
      await page.click('#burst');
      await expect.poll(() => readCard(page, SLIDING_WINDOW)).toMatchObject({ state: 'active, paused', queued: 2 });
      await page.waitForTimeout(300);
      for (const lane of [TIMER, SLIDING_WINDOW]) {
        expect(await readCard(page, lane)).toMatchObject({
          delivered: 10,
          queued: 2,
          wake: 'none (paused until resumed)',
        });
      }
      await page.click('#pause');
      await untilBothDelivered(page, 12);
    });

    it('shows the timer letting 2N - 1 through within one interval where the sliding window lets N', async () => {
      await page.fill('#burst-size', '10');
      await page.click('#across-tick');
      // Both throttlers start afresh: one message, then five at 900 ms. The timer is done at 1000 ms,
      // the sliding window at 1900 ms: the picture is taken in between if the machine is quick enough.
      await expect.poll(async () => (await readCard(page, TIMER)).delivered, { timeout: DRAIN_MS }).toBe(2 * LIMIT);
      await page.screenshot({ path: screenshotPath, fullPage: true });
      await untilBothDelivered(page, 2 * LIMIT);
      const [timer, slidingWindow] = await expectShownWindowsCounted(page);
      expect(slidingWindow).toBeLessThanOrEqual(LIMIT);
      expect(timer).toBeLessThanOrEqual(2 * LIMIT);
      const lanes = await report(page);
      expect(lanes.map(({ strategy, deliveries }) => [strategy, deliveries.length])).toEqual([
        ['timer', 2 * LIMIT],
        ['sliding-window', 2 * LIMIT],
      ]);
      expect(requested).not.toContain(`/${built.inspectorChunk}`);
      expect(pageErrors).toEqual([]);
    });
  });
}

if (executablePath === undefined) {
  describe('the live page in headless Chromium', () => {
    it('is skipped, except under CI', (context) => {
      if (missingChromiumIsAnError()) throw new Error(`CI=true and ${NO_CHROMIUM}: the live page must be tested in CI`);
      context.skip(`the live page test: ${NO_CHROMIUM}`);
    });
  });
} else {
  describeLivePage(executablePath);
}
