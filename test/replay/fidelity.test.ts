import { afterEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, type ThrottlerOptions } from '../../src/index.js';
import type { RecordedArrival } from '../../src/replay/format.js';
import { type ReplayDecision, readRecording, recordThrottler, replay } from '../../src/replay/index.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * docs/replay.md's claim, tested: a recorded run replayed through its own configuration makes the same
 * decisions (exactly, when the run was in virtual time: its timers fired on time), and its waits agree with a
 * real-timer run's within 1% or 5 ms.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function recorded(text: string): Promise<RecordedArrival[]> {
  const arrivals: RecordedArrival[] = [];
  for await (const item of readRecording(text)) if (item.kind === 'arrival') arrivals.push(item.arrival);
  return arrivals;
}

async function replayed(text: string): Promise<ReplayDecision[]> {
  const decisions: ReplayDecision[] = [];
  await replay(text, undefined, { onDecision: (decision) => decisions.push(decision) });
  return decisions.sort((a, b) => a.arrival - b.arrival);
}

/** Bursts of tasks 110 ms apart (each drained before the next), some with a deadline, each running a few ms, a few failing. */
async function traffic(options: ThrottlerOptions): Promise<string> {
  const throttler = createThrottler(options);
  let text = '';
  const recording = recordThrottler(throttler, { to: (line) => (text += line), configuration: options });
  const tasks: Promise<unknown>[] = [];
  for (let burst = 0; burst < 6; burst++) {
    for (let n = 0; n < 7; n++) {
      const channel = n % 3 === 0 ? 'search' : 'write';
      const maxWait = n === 6 ? 30 : undefined;
      const task = async () => {
        await sleep(2 + ((burst + n) % 4) * 3);
        if ((burst * 7 + n) % 11 === 5) throw new Error('server error');
      };
      tasks.push(recording.schedule(task, { channel, maxWait }).catch(() => undefined));
    }
    await sleep(110);
  }
  await Promise.all(tasks);
  recording.close();
  throttler.stop();
  return text;
}

const OPTIONS: ThrottlerOptions = {
  rate: '4/50ms',
  strategy: 'sliding-window',
  keys: { rate: '3/50ms' },
  maxConcurrent: 3,
  // Timers on time to the sub-millisecond (setTimeout, then setImmediate turns for the last 2 ms): with
  // 'ms', each of Node's wake-ups comes up to a millisecond late, and in a strict window that carries on.
  timerPrecision: 'exact',
};

describe('a replay through the recorded configuration', () => {
  afterEach(restoreRealTime);

  it('makes the decisions of a run in virtual time, exactly: every delivery time and every drop', async () => {
    useVirtualTime();
    const done = traffic(OPTIONS);
    await vi.advanceTimersByTimeAsync(2_000);
    const text = await done;
    restoreRealTime();
    const arrivals = await recorded(text);
    expect(arrivals).toHaveLength(42);
    expect(arrivals.filter((arrival) => arrival.dropped === 'expired').length).toBeGreaterThan(0);
    expect(arrivals.filter((arrival) => arrival.sent !== undefined && arrival.sent > arrival.t).length).toBeGreaterThan(
      5,
    );
    const decisions = await replayed(text);
    expect(decisions.map((decision) => decision.sent ?? decision.dropped ?? decision.rejected)).toEqual(
      arrivals.map((arrival) => arrival.sent ?? arrival.dropped ?? arrival.rejected),
    );
  });

  it("agrees with a real-timer run's waits within 1% or 5 ms, when the run's timers fired on time", async (context) => {
    // The claim holds for a run whose timers fired on time: a probe measures how late a 1 ms timer came
    // during the run, and a run on a machine too busy for that (other engineers' tests, CI's neighbours) is
    // tried again, up to 3 times, then the test is skipped saying so, never failed for the machine's load.
    await traffic(OPTIONS); // warm: the first run of the code waits for the compiler
    const latenesses: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const probe = timerProbe();
      const text = await traffic(OPTIONS);
      const late = probe.stop();
      if (late > ON_TIME_MS) {
        latenesses.push(late);
        continue;
      }
      const arrivals = await recorded(text);
      const decisions = await replayed(text);
      expect(
        arrivals.filter((arrival) => arrival.sent !== undefined && arrival.sent - arrival.t > 10).length,
      ).toBeGreaterThan(5);
      expect(waitsApart(arrivals, decisions)).toEqual([]);
      return;
    }
    context.skip(
      `timers came up to ${latenesses.map((ms) => ms.toFixed(0)).join(', ')} ms late in 3 runs: too busy a machine to compare`,
    );
  });
});

/** A timer may come this late and the run still count as on time (Node's 1 ms timers come 1 to 2 ms late). */
const ON_TIME_MS = 3;

/** How late a chain of 1 ms timers came, at worst, while it ran. */
function timerProbe(): { stop(): number } {
  let worst = 0;
  let due = performance.now() + 1;
  const tick = () => {
    const now = performance.now();
    worst = Math.max(worst, now - due);
    due = now + 1;
    timer = setTimeout(tick, 1);
  };
  let timer = setTimeout(tick, 1);
  return {
    stop() {
      clearTimeout(timer);
      return worst;
    },
  };
}

/** The arrivals whose replayed wait is more than 1% or 5 ms from the recorded one, or whose fate differs. */
function waitsApart(arrivals: readonly RecordedArrival[], decisions: readonly ReplayDecision[]): string[] {
  return arrivals.flatMap((arrival, at) => {
    const decision = decisions[at] as ReplayDecision;
    if (arrival.sent === undefined || decision.sent === undefined) {
      const same = (arrival.dropped ?? arrival.rejected) === (decision.dropped ?? decision.rejected);
      return same ? [] : [`#${at}: ${JSON.stringify({ arrival, decision })}`];
    }
    const real = arrival.sent - arrival.t;
    const virtual = decision.sent - decision.t;
    return Math.abs(real - virtual) <= Math.max(0.01 * real, 5)
      ? []
      : [`#${at}: waited ${real} ms, replayed ${virtual} ms`];
  });
}
