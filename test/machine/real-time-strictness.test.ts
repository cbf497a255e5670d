/**
 * Strictness on real timers: the one check that the sliding window holds when
 * the wake-ups come from the runtime's own timers rather than fake ones (in
 * Node, and in real Chromium through the browser project, where preciseClock
 * takes MessageChannel turns). Short runs; bounds on elapsed time are generous
 * because the machine running the tests may be busy. The safety check itself
 * is exact: no window [t, t + 50) holds more than 5 deliveries, by brute force
 * over the delivery times on the throttler's clock.
 */
import { describe, expect, it } from 'vitest';
import { type Actor, createActor } from 'xstate';
import { createThrottler, preciseClock, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { overfullWindows, type RateConfig } from '../support/oracle.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';

const RATE = '5/50ms';
const FIVE_PER_50MS: RateConfig = { overall: [{ limit: 5, interval: 50 }], channels: {} };
const FIRST_BURST = 20;
const SECOND_BURST = 5;
/** Five windows' worth at 5 per 50 ms is about 250 ms; a busy machine gets ten times that. */
const GENEROUS_MS = 2_500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Delivery times (the `delivered` events' `at`, on the throttler's clock) and order, as recorded. */
function recordDeliveries(actor: Actor<typeof throttlerMachine>) {
  const deliveries: Array<{ n: number; at: number }> = [];
  actor.on('delivered', (event) => deliveries.push({ n: (event.message as Numbered).n, at: event.at }));
  return deliveries;
}

function expectStrict(deliveries: ReadonlyArray<{ n: number; at: number }>, startedAt: number): void {
  const total = FIRST_BURST + SECOND_BURST;
  expect(deliveries.map((d) => d.n)).toEqual(Array.from({ length: total }, (_, n) => n));
  expect(
    overfullWindows(
      FIVE_PER_50MS,
      deliveries.map(({ at }) => ({ at, cost: 1, channel: undefined })),
    ),
  ).toEqual([]);
  // Not faster than the rate allows at all (25 need 4 full windows after the first), nor absurdly slow.
  const last = (deliveries.at(-1)?.at ?? Number.NaN) - startedAt;
  expect(last).toBeGreaterThanOrEqual(200);
  expect(last).toBeLessThan(GENEROUS_MS);
}

async function untilDelivered(deliveries: readonly unknown[]): Promise<void> {
  const deadline = performance.now() + GENEROUS_MS;
  while (deliveries.length < FIRST_BURST + SECOND_BURST && performance.now() < deadline) await sleep(10);
}

describe('sliding-window on real timers: never more than 5 in any 50 ms', () => {
  it.each(['ms', 'exact'] as const)("the machine, timerPrecision '%s'", async (timerPrecision) => {
    const target = createRecorder<Numbered>();
    const input: ThrottlerInput = { rate: RATE, strategy: 'sliding-window', timerPrecision, target: target.ref };
    const actor = createActor(throttlerMachine, {
      input,
      ...(timerPrecision === 'exact' ? { clock: preciseClock() } : {}),
    });
    const deliveries = recordDeliveries(actor);
    actor.start();
    const startedAt = performance.now();
    for (let n = 0; n < FIRST_BURST; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    await sleep(60);
    for (let n = FIRST_BURST; n < FIRST_BURST + SECOND_BURST; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    await untilDelivered(deliveries);
    actor.stop();
    expectStrict(deliveries, startedAt);
    expect(target.messages()).toEqual(deliveries.map(({ n }) => msg(n)));
  });

  it("the promise API, timerPrecision 'exact' (on preciseClock by itself)", async () => {
    const throttler = createThrottler({ rate: RATE, strategy: 'sliding-window', timerPrecision: 'exact' });
    const deliveries: Array<{ n: number; at: number }> = [];
    throttler.actor.on('delivered', (event) => deliveries.push({ n: deliveries.length, at: event.at }));
    const startedAt = performance.now();
    const ran: number[] = [];
    const tasks = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => throttler.schedule(() => ran.push(from + i)));
    const first = tasks(0, FIRST_BURST);
    await sleep(60);
    await Promise.all([...first, ...tasks(FIRST_BURST, SECOND_BURST)]);
    throttler.stop();
    expect(ran).toEqual(Array.from({ length: FIRST_BURST + SECOND_BURST }, (_, n) => n));
    expectStrict(deliveries, startedAt);
  });
});
