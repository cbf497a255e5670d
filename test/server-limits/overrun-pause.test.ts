/**
 * An overrun that spends a provider quota pauses only as long as the server's window needs
 * (src/server-limits/overrun-pause.ts), in virtual time against a brute-force server that keeps a strict
 * sliding window of tokens at arrival: it holds each request's estimate while it works, its actual cost
 * once done, and answers OpenAI's fields (the reset: until the quota is full again) when done.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, throttlerMachine } from '../../src/index.js';
import { applyServerLimits, readServerLimits, serverLimits } from '../../src/server-limits/index.js';
import { seededRandom } from '../support/random.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const WINDOW = 6_000;
const LIMIT = 6_000;
const UPLINK = 30;
const WORK = 200;

interface Counted {
  readonly arrival: number;
  readonly done: number;
  readonly estimate: number;
  readonly actual: number;
}

/** The brute-force server: every request it accepted, and what its window holds at any time. */
class TokenWindowServer {
  readonly counted: Counted[] = [];
  /** When each refused request arrived. */
  readonly refused: number[] = [];

  /**
   * What the window holds at `time`, by the record of every request: an estimate until done, then its actual.
   */
  held(time: number): number {
    let sum = 0;
    for (const one of this.counted) {
      if (one.arrival > time - WINDOW && one.arrival <= time) sum += time >= one.done ? one.actual : one.estimate;
    }
    return sum;
  }

  /** A request arriving now: refused when its estimate does not fit, else counted and answered after WORK. */
  async handle(estimate: number, actual: number): Promise<{ status: number; headers: Record<string, string> }> {
    const arrival = now();
    if (this.held(arrival) + estimate > LIMIT) {
      this.refused.push(arrival);
      return { status: 429, headers: { 'retry-after': '1' } };
    }
    this.counted.push({ arrival, done: arrival + WORK, estimate, actual });
    await new Promise((resolve) => setTimeout(resolve, WORK));
    const done = now();
    const held = this.held(done);
    // OpenAI's reset: until the window holds nothing, when the last request counted leaves it.
    const last = Math.max(...this.counted.filter((one) => one.arrival > done - WINDOW).map((one) => one.arrival));
    return {
      status: 200,
      headers: {
        'x-ratelimit-limit-tokens': String(LIMIT),
        'x-ratelimit-remaining-tokens': String(Math.max(0, LIMIT - held)),
        'x-ratelimit-reset-tokens': `${Math.max(0, last + WINDOW - done)}ms`,
      },
    };
  }
}

describe('an overrun that spends a quota (OpenAI fields, a sliding window at the server)', () => {
  it('pauses no longer than the server has no room for the next request, with no 429', async () => {
    const server = new TokenWindowServer();
    const random = seededRandom(36);
    const throttler = createThrottler({
      rate: `${LIMIT}/${WINDOW / 1_000}s`,
      strategy: 'sliding-window',
      // The uplink is a constant 30 ms: no spread to widen the windows by (the measured default would take
      // the whole round trip, work included, and hold each window that much longer than the server needs).
      transit: 0,
      serverLimits: serverLimits((result: { status: number; headers: Record<string, string> }) => result, {
        dimension: 'tokens',
        providerWindow: WINDOW,
      }),
    });
    const sends: Array<{ at: number; estimate: number }> = [];
    const spent: Array<{ at: number; reset: number }> = [];
    const run = (estimate: number, actual: number) =>
      throttler.schedule(
        async () => {
          sends.push({ at: now(), estimate });
          await new Promise((resolve) => setTimeout(resolve, UPLINK));
          const answer = await server.handle(estimate, actual);
          if (answer.headers['x-ratelimit-remaining-tokens'] === '0') {
            spent.push({ at: now(), reset: Number.parseFloat(answer.headers['x-ratelimit-reset-tokens'] as string) });
          }
          return answer;
        },
        { cost: estimate, settle: () => actual },
      );
    // Asked for steadily, above the limit (about 10,000 tokens per window against 6,000), so the window's
    // deliveries spread over it and a spent quota has room before it is full again.
    const tasks: Array<Promise<unknown>> = [];
    for (let index = 0; index < 400; index += 1) {
      const estimate = 100;
      const actual = Math.round(estimate * (0.9 + 0.3 * random()));
      setTimeout(() => tasks.push(run(estimate, actual)), index * 60);
    }
    await vi.advanceTimersByTimeAsync(60_000);
    expect(tasks).toHaveLength(400);
    await Promise.all(tasks);

    // A request is refused only when an overrun of a request done while it was on its way (or in the ms it
    // went, before the client settled it) took the room it was sent into: the server counted the actual, the
    // client still the estimate. Never the first request after a pause (below).
    for (const arrival of server.refused) {
      const overrunOnTheWay = server.counted.some(
        (one) => one.done >= arrival - UPLINK && one.done <= arrival && one.actual > one.estimate,
      );
      expect(overrunOnTheWay, `refused at ${arrival}`).toBe(true);
    }
    expect(server.refused.length).toBeLessThanOrEqual(8);
    expect(spent.length).toBeGreaterThan(0);
    let cut = 0;
    for (const { at, reset } of spent) {
      const next = sends.find((send) => send.at >= at);
      if (next === undefined) continue;
      expect(server.refused, 'the first request after a pause').not.toContain(next.at + UPLINK);
      // The server had no room for it (what arrives at time + UPLINK) at any time more than UPLINK before it
      // went: room made by a request done (its actual below its estimate) is known to the client only when
      // the answer comes, UPLINK after that time. What the server holds changes only as a request leaves its
      // window or is done, so those times are enough.
      const changes = server.counted.flatMap((one) => [one.arrival + WINDOW - UPLINK, one.done - UPLINK]);
      for (const time of [at, ...changes.filter((time) => time > at && time < next.at - UPLINK - 1)]) {
        expect(server.held(time + UPLINK) + next.estimate, `room at ${time}, sent at ${next.at}`).toBeGreaterThan(
          LIMIT,
        );
      }
      if (reset - (next.at - at) > 1_000) cut += 1;
    }
    // The overruns' pauses were cut: a pause to the reset (the quota full again) would have waited longer.
    expect(cut).toBeGreaterThan(0);
  });
});

describe('which pauses are cut', () => {
  const openAiSpent = (extra: Record<string, string> = {}) =>
    readServerLimits(
      {
        'x-ratelimit-limit-tokens': '100',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '900ms',
        ...extra,
      },
      { dimension: 'tokens', providerWindow: 1_000 },
    );

  function busyThrottler() {
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, {
      input: { rate: '100/1s', strategy: 'sliding-window', target: target.ref },
    }).start();
    actor.send({ type: 'QUEUE', message: msg(1), cost: 60 });
    advance(300);
    actor.send({ type: 'QUEUE', message: msg(2), cost: 40 });
    return actor;
  }

  it('a spent OpenAI quota: until the first delivery leaves the throttler window, not the reset', () => {
    const actor = busyThrottler();
    // At 300 ms the window holds 100 of 100; the first 60 leave it at 1,000 ms, 700 ms from now.
    const [pause] = applyServerLimits(actor, openAiSpent());
    expect(pause?.type).toBe('PAUSE');
    expect((pause as { duration: number }).duration).toBeCloseTo(700, 0);
  });

  it('no pause when the throttler window has room: the server counts what it let go an uplink ago', () => {
    const actor = busyThrottler();
    advance(800);
    // At 1,100 ms the first 60 have left the window: 40 of 100 held.
    expect(applyServerLimits(actor, openAiSpent())).toEqual([]);
  });

  it('a 429 keeps its whole pause: a Retry-After, else the reset as stated', () => {
    const actor = busyThrottler();
    const limits = openAiSpent();
    const refused = readServerLimits(
      { 'retry-after': '2', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '900ms' },
      { status: 429, dimension: 'tokens', providerWindow: 1_000 },
    );
    expect(limits.pauseFrom).toBe('x-ratelimit-reset-tokens');
    expect(applyServerLimits(actor, refused)).toEqual([{ type: 'PAUSE', duration: 2_000 }]);
    const bare = readServerLimits(
      { 'x-ratelimit-limit-tokens': '100', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '3s' },
      { status: 429, dimension: 'tokens', providerWindow: 1_000 },
    );
    expect(applyServerLimits(actor, bare)).toEqual([{ type: 'PAUSE', duration: 3_000 }]);
  });

  it('the reset as stated when the throttler holds nothing of that quota, or for an IETF reset', () => {
    const target = createRecorder<Numbered>();
    const idle = createActor(throttlerMachine, {
      input: { rate: '100/1s', strategy: 'sliding-window', target: target.ref },
    }).start();
    expect(applyServerLimits(idle, openAiSpent())).toEqual([{ type: 'PAUSE', duration: 900 }]);
    const actor = busyThrottler();
    const ietf = readServerLimits({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0.9' });
    expect(applyServerLimits(actor, ietf)).toEqual([{ type: 'PAUSE', duration: 900 }]);
  });
});
