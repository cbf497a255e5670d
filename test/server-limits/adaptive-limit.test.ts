/**
 * The search behind `adaptive` step by step (limit-search.ts), and `adaptiveLimit` on a throttler:
 * its options, what it sends, what it leaves to the server's stated answers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, throttlerMachine } from '../../src/index.js';
import { adaptiveLimit, readServerLimits, serverLimits } from '../../src/server-limits/index.js';
import {
  LimitSearch,
  PROBE_INTERVALS,
  PROBE_SPACING,
  PROBE_SPACING_MIN,
} from '../../src/server-limits/limit-search.js';
import { throttlerInForce } from '../../src/server-limits/throttler-in-force.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder, type Numbered } from '../support/recorder.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/** `count` answers at `time`, all accepted or all refused; the limit after them. */
function answer(search: LimitSearch, time: number, count: number, refused = false): number {
  for (let n = 0; n < count; n += 1) search.observe(time, refused);
  return search.limit;
}

/**
 * Answers `perWindow` a window from second `from` to `to`, refusing the one above the limit when a probe
 * sets it; the seconds a probe came in.
 */
function probeSeconds(search: LimitSearch, perWindow: number, from: number, to: number): number[] {
  const seconds: number[] = [];
  for (let second = from; second <= to; second += 1) {
    if (answer(search, second * 1_000, perWindow) > perWindow) {
      seconds.push(second);
      expect(answer(search, second * 1_000, 1, true)).toBe(perWindow); // refused: back to the edge
    }
  }
  return seconds;
}

/** A search at the edge of 10 a window, answered per window as `pattern` says until it probes at 11. */
function probing(pattern: (second: number) => Array<[number, number]>): { search: LimitSearch; time: number } {
  const search = new LimitSearch(5, 1_000, 1_000, 10);
  answer(search, 0, 10); // 20
  answer(search, 0, 1, true); // 10 accepted, as many as held: the edge
  expect(search.known).toEqual({ good: 10, bad: 11 });
  let time = 0;
  for (let second = 1; search.limit === 10; second += 1) {
    for (const [at, count] of pattern(second)) {
      time = at;
      answer(search, at, count);
    }
  }
  expect(search.limit).toBe(11);
  return { search, time };
}

describe('LimitSearch', () => {
  it('doubles while the window fills and nothing bounds it, never above max', () => {
    const search = new LimitSearch(5, 30, 1_000, 5);
    expect(answer(search, 0, 5)).toBe(10);
    expect(answer(search, 0, 5)).toBe(20);
    expect(answer(search, 0, 10)).toBe(30);
    expect(answer(search, 0, 100)).toBe(30);
  });

  it('a window not filled is no reason to rise: the limit does not bind', () => {
    const search = new LimitSearch(5, 100, 1_000, 10);
    for (let second = 0; second < 20; second += 1) expect(answer(search, second * 1_000, 9)).toBe(10);
  });

  it('a refusal above what held marks the edge at what the server accepted; probes then come every 3 windows, 231 answers at 77', () => {
    const search = new LimitSearch(5, 1_000, 1_000, 5);
    answer(search, 0, 5 + 10 + 20 + 40); // 5 -> 80
    expect(search.limit).toBe(80);
    answer(search, 0, 2); // the server took 77 in this window, then refused
    expect(answer(search, 0, 1, true)).toBe(77);
    expect(search.known).toEqual({ good: 40, bad: 78 });
    // Next window: 77 accepted is the limit holding; no probe yet.
    expect(answer(search, 1_000, 77)).toBe(77);
    expect(search.known).toEqual({ good: 77, bad: 78 });
    // 3 windows' worth of answers (231, so a refusal per 232 requests) between probes.
    expect(probeSeconds(search, 77, 2, 31)).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
  });

  it('where 3 windows hold fewer than PROBE_SPACING_MIN answers, a probe per PROBE_SPACING answers', () => {
    const search = new LimitSearch(5, 1_000, 1_000, 40);
    answer(search, 0, 40); // 80
    expect(answer(search, 0, 1, true)).toBe(40); // the edge
    expect(PROBE_INTERVALS * 40).toBeLessThan(PROBE_SPACING_MIN);
    // 250 answers at 40 a window: the 7th window's fill.
    expect(probeSeconds(search, 40, 1, 30)).toEqual([7, 14, 21, 28]);
    expect(PROBE_SPACING).toBe(250);
  });

  it('a refusal below what held halves the limit, once per window, never below min', () => {
    const search = new LimitSearch(5, 1_000, 1_000, 40);
    answer(search, 0, 40); // good 40, now 80
    answer(search, 1_000, 10);
    expect(answer(search, 1_000, 1, true)).toBe(40); // 10 accepted < 40 that held: the limit fell
    expect(search.known).toEqual({ good: 0, bad: 80 });
    expect(answer(search, 1_500, 5, true)).toBe(40); // the same window: sends already made
    expect(answer(search, 2_000, 1, true)).toBe(20);
    expect(answer(search, 3_000, 1, true)).toBe(10);
    expect(answer(search, 4_000, 1, true)).toBe(5);
    expect(answer(search, 5_000, 1, true)).toBe(5);
  });

  it('a probe accepted with every answer of its window is believed at once; the limit then rises by 1, 2, 4... until refused', () => {
    const { search, time } = probing((second) => [[second * 1_000, 10]]);
    // The window's answers all came with it: no server counting fixed windows could have had one of
    // them in a window of its own before, so the limit rose.
    expect(answer(search, time, 1)).toBe(12); // +1
    expect(answer(search, time, 1)).toBe(14); // +2
    expect(answer(search, time, 2)).toBe(18); // +4
    expect(search.known).toEqual({ good: 14, bad: Number.POSITIVE_INFINITY });
    // The edge, in the same window: the first refusal, exact for a sliding window.
    expect(answer(search, time, 3)).toBe(18);
    expect(answer(search, time, 1, true)).toBe(17);
    expect(search.known).toEqual({ good: 14, bad: 18 });
  });

  it('a probe accepted after answers earlier in its window is believed once those were sent again', () => {
    // 5 answers 200 ms into each window, 5 at 700 ms: a fixed window may start between them.
    const halves = (second: number): Array<[number, number]> => [
      [second * 1_000 + 200, 5],
      [second * 1_000 + 700, 5],
    ];
    const held = probing(halves);
    expect(answer(held.search, held.time + 50, 1)).toBe(11);
    expect(answer(held.search, held.time + 500, 5)).toBe(11);
    // The 5 of 700 ms sent again: a fixed window holding them all would refuse one here.
    expect(answer(held.search, held.time + 1_000, 5)).toBe(11);
    expect(held.search.known).toEqual({ good: 10, bad: 11 });
    expect(answer(held.search, held.time + 1_050, 1)).toBe(12); // after them: believed, +1
    // A server counting fixed windows: the probe went through at the edge of two, one sent again is refused.
    const fooled = probing(halves);
    expect(answer(fooled.search, fooled.time + 50, 1)).toBe(11);
    expect(answer(fooled.search, fooled.time + 500, 4)).toBe(11);
    expect(answer(fooled.search, fooled.time + 500, 1, true)).toBe(10);
    expect(fooled.search.known).toEqual({ good: 10, bad: 11 });
  });
});

describe('adaptiveLimit on a throttler', () => {
  beforeEach(useVirtualTime);
  afterEach(restoreRealTime);

  it('checks its options, naming each', () => {
    const throttler = createThrottler({ rate: '100/1s' });
    expectOptionError(() => adaptiveLimit(throttler, { min: '5/1s', max: '10/1m' }), {
      message: 'adaptive.max must be a rate over the interval of min (1000 ms), got "10/1m"',
      option: 'adaptive.max',
      value: '10/1m',
    });
    expect(() => adaptiveLimit(throttler, { min: '5/1s', max: '4/1s' })).toThrow(
      /adaptive.max must be a rate of at least min/,
    );
    expect(() => adaptiveLimit(throttler, { min: '5/1s', max: '9/1s', start: '10/1s' })).toThrow(/adaptive.start/);
    expect(() => adaptiveLimit(throttler, { min: 'fast', max: '9/1s' })).toThrow(/adaptive.min/);
    expect(() => adaptiveLimit(throttler, null as never)).toThrow(/adaptive must be an object/);
    expect(() => serverLimits(undefined, { adaptive: { min: '5/1s', max: 3 as never } })).toThrow(/adaptive.max/);
    throttler.stop();
  });

  it('starts at min under the configured rate, which stays the ceiling beside it', () => {
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, {
      input: { rate: '100/1s', strategy: 'sliding-window', target: target.ref },
    }).start();
    const events: unknown[] = [];
    const send = actor.send.bind(actor);
    vi.spyOn(actor, 'send').mockImplementation((event) => {
      events.push(event);
      send(event);
    });
    const adaptive = adaptiveLimit(actor, { min: '5/1s', max: '1000/1s' });
    expect(events).toEqual([
      {
        type: 'SET_RATE',
        rate: [
          { limit: 5, interval: 1_000 },
          { limit: 100, interval: 1_000 },
        ],
      },
    ]);
    const ok = readServerLimits({ status: 200, headers: {} });
    for (let n = 0; n < 5; n += 1) adaptive.observe(ok);
    expect(adaptive.rate).toEqual({ limit: 10, interval: 1_000 });
    // A stated policy is followed as it is, and teaches the search nothing.
    const stated = readServerLimits({ status: 200, headers: { 'RateLimit-Policy': '"default";q=3;w=1' } });
    expect(adaptive.observe(stated)).toEqual([
      {
        type: 'SET_RATE',
        rate: [
          { limit: 3, interval: 1_000 },
          { limit: 100, interval: 1_000 },
        ],
      },
    ]);
    expect(adaptive.rate).toEqual({ limit: 10, interval: 1_000 });
    actor.stop();
  });

  it("with serverLimits' channel, the search sets that channel's rate, the overall one untouched", async () => {
    const throttler = createThrottler({
      rate: '50/1s',
      channels: { search: '40/1s' },
      serverLimits: serverLimits((value) => value, { channel: 'search', adaptive: { min: '3/1s', max: '40/1s' } }),
    });
    const inForce = throttlerInForce(throttler);
    expect(inForce?.rates('search')).toEqual([
      { limit: 3, interval: 1_000 },
      { limit: 40, interval: 1_000 },
    ]);
    expect(inForce?.rates(undefined)).toEqual([{ limit: 50, interval: 1_000 }]);
    await Promise.all(
      [1, 2, 3].map(() => throttler.schedule(() => ({ status: 200, headers: {} }), { channel: 'search' })),
    );
    expect(inForce?.rates('search')?.[0]).toEqual({ limit: 6, interval: 1_000 });
    throttler.stop();
  });

  it('serverLimits({ adaptive }): a bare 429 lowers the rate instead of pausing; a Retry-After still pauses', async () => {
    const throttler = createThrottler({
      rate: '100/1s',
      strategy: 'sliding-window',
      serverLimits: serverLimits((value) => value, { adaptive: { min: '2/1s', max: '100/1s', start: '8/1s' } }),
    });
    const answers = [200, 200, 200, 200, 429];
    const starts: number[] = [];
    const call = () => {
      starts.push(Date.now());
      return { status: answers.shift() ?? 200, headers: {} };
    };
    // 4 accepted, then a refusal with nothing known to have held: halved to 4, and no pause.
    await Promise.all([1, 2, 3, 4, 5].map(() => throttler.schedule(call)));
    expect(starts).toEqual([0, 0, 0, 0, 0]);
    const inForce = throttlerInForce(throttler);
    expect(inForce?.rates(undefined)).toEqual([
      { limit: 4, interval: 1_000 },
      { limit: 100, interval: 1_000 },
    ]);
    expect(inForce?.pausedUntil()).toBe(Number.NEGATIVE_INFINITY);
    // The window holds 5 sends at 0, so the next goes at 1 s; its Retry-After pauses 5 s from then.
    const refused = throttler.schedule(() => ({ status: 429, headers: { 'retry-after': '5' } }));
    await vi.advanceTimersByTimeAsync(1_000);
    await refused;
    expect(inForce?.pausedUntil()).toBe(6_000);
    throttler.stop();
  });

  it('a wall clock stepped back 10 minutes changes nothing: the search runs on the throttler’s monotonic clock', async () => {
    /** Requests started in the 5 s after a server begins refusing every one (a 429 storm). */
    const sentIntoStorm = async (stepBack: boolean): Promise<number> => {
      const throttler = createThrottler({
        rate: '100/1s',
        strategy: 'sliding-window',
        serverLimits: serverLimits((value) => value, { adaptive: { min: '5/1s', max: '100/1s', start: '40/1s' } }),
      });
      let refusing = false;
      let sent = 0;
      const call = () => {
        if (refusing) sent += 1;
        return { status: refusing ? 429 : 200, headers: {} };
      };
      const all = Array.from({ length: 1_500 }, () => throttler.schedule(call));
      await vi.advanceTimersByTimeAsync(2_000);
      refusing = true;
      // Once the first refusals have halved the limit: the search must go on halving it.
      await vi.advanceTimersByTimeAsync(100);
      if (stepBack) vi.setSystemTime(Date.now() - 10 * 60_000);
      await vi.advanceTimersByTimeAsync(4_900);
      throttler.clear();
      await Promise.allSettled(all);
      throttler.stop();
      return sent;
    };
    const steady = await sentIntoStorm(false);
    const stepped = await sentIntoStorm(true);
    // Halved once a window: 100 + 50 + 25 + 12 + 6. On the wall clock stepped back, the accepted answers of
    // the second before stayed "in the window" for 10 minutes: every 429 read as the edge, 500 were sent.
    expect(steady).toBe(193);
    expect(stepped).toBe(steady);
  });
});
