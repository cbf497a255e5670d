import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerOptionError } from '../../src/index.js';
import { createMemoryStore } from '../../src/store/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * retry.place (issue 34): a retry keeps its place in line by default, its priority and first arrival,
 * so a backlog that arrived after it does not push it back; `'back'` keeps the old way. `retryStarted`
 * tells the real wait from the failure to the retry's start.
 */

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A task failing twice (100 ms backoff) scheduled first, then a backlog of 20 tasks, one every 100 ms. */
async function failingTwiceAmongBacklog(place?: 'keep' | 'back') {
  const throttler = createThrottler({ rate: '1/100ms', strategy: 'sliding-window' });
  const starts: number[] = [];
  const waits: Array<{ attempt: number; delay: number; waited: number }> = [];
  throttler.on('retryStarted', (id, retry) => {
    expect(id).toBe('flaky');
    waits.push(retry);
  });
  let finishedAt = Number.NaN;
  const flaky = throttler
    .schedule(
      () => {
        starts.push(now());
        if (starts.length <= 2) throw new Error('boom');
        finishedAt = now();
        return 'ok';
      },
      { id: 'flaky', retry: { retries: 2, backoff: () => 100, ...(place === undefined ? {} : { place }) } },
    )
    .then((value) => value);
  const backlog = Array.from({ length: 20 }, (_, index) => throttler.schedule(() => index));
  await advance(10_000);
  await expect(flaky).resolves.toBe('ok');
  await Promise.all(backlog);
  await throttler.stop();
  return { starts, waits, finishedAt };
}

describe('retry.place', () => {
  it("keeps its place by default: a task failing twice among a backlog finishes near Bottleneck's 206 ms, not 2 s", async () => {
    const { starts, waits, finishedAt } = await failingTwiceAmongBacklog();
    // One slot every 100 ms: the retry, queued as its backoff ends, takes the next slot, ahead of the backlog.
    expect(starts).toEqual([0, 100, 200]);
    expect(finishedAt).toBe(200);
    // The retry event said 100 ms, and so it was.
    expect(waits).toEqual([
      { attempt: 2, delay: 100, waited: 100 },
      { attempt: 3, delay: 100, waited: 100 },
    ]);
  });

  it("place: 'back' queues a retry behind everything waiting then, as before (the real wait shows it)", async () => {
    const { starts, waits, finishedAt } = await failingTwiceAmongBacklog('back');
    expect(finishedAt).toBeGreaterThan(2_000);
    expect(starts[1]).toBeGreaterThan(1_900);
    expect(waits[0]?.delay).toBe(100);
    expect(waits[0]?.waited).toBeGreaterThan(1_800);
  });

  it('keeps its priority and goes before tasks of its priority that arrived after it, never before earlier ones', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const log: string[] = [];
    const task =
      (name: string, fail = false) =>
      () => {
        log.push(`${name}@${now()}`);
        if (fail && !log.includes(`${name} failed`)) {
          log.push(`${name} failed`);
          throw new Error(name);
        }
      };
    const options = { retry: { retries: 1, backoff: () => 10 } };
    const jobs = [
      throttler.schedule(task('r', true), options),
      throttler.schedule(task('a')),
      throttler.schedule(task('b')),
      throttler.schedule(task('high'), { priority: 9 }),
    ];
    await advance(10_000);
    await Promise.all(jobs);
    // r fails at 0, its retry waits from 10 ms at r's first place: after 'high' (priority 9, ranked ahead
    // of every priority-5 task that waited less than maxPriorityWait), before a and b.
    expect(log).toEqual(['r@0', 'r failed', 'high@1000', 'r@2000', 'a@3000', 'b@4000']);
    await throttler.stop();
  });

  it('a retry of a task that started inside schedule() goes before every task that arrived after it', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const log: string[] = [];
    let calls = 0;
    const first = throttler.schedule(
      () => {
        calls += 1;
        log.push(`r${calls}@${now()}`);
        if (calls === 1) throw new Error('once');
      },
      { retry: { retries: 1, backoff: () => 10 } },
    );
    const later = [1, 2].map((index) => throttler.schedule(() => void log.push(`t${index}@${now()}`)));
    await advance(5_000);
    await Promise.all([first, ...later]);
    expect(log).toEqual(['r1@0', 'r2@1000', 't1@2000', 't2@3000']);
    await throttler.stop();
  });

  it('in its own channel: ahead of that channel’s later tasks, its channel’s limit still holding it', async () => {
    const throttler = createThrottler({
      rate: '10/1s',
      strategy: 'sliding-window',
      ordering: 'per-channel',
      channels: { slow: '1/1s' },
    });
    const log: string[] = [];
    let calls = 0;
    const retried = throttler.schedule(
      () => {
        calls += 1;
        log.push(`slow r${calls}@${now()}`);
        if (calls === 1) throw new Error('once');
      },
      { channel: 'slow', retry: { retries: 1, backoff: () => 10 } },
    );
    const others = [
      ...[1, 2].map((index) => throttler.schedule(() => void log.push(`slow ${index}@${now()}`), { channel: 'slow' })),
      throttler.schedule(() => void log.push(`other@${now()}`)),
    ];
    await advance(5_000);
    await Promise.all([retried, ...others]);
    expect(log).toEqual(['slow r1@0', 'other@0', 'slow r2@1000', 'slow 1@2000', 'slow 2@3000']);
    await throttler.stop();
  });

  it('with a store: the retry takes the next grant ahead of the backlog (the head takes the earliest grant of its kind)', async () => {
    for (const place of ['keep', 'back'] as const) {
      const throttler = createThrottler({
        rate: '1/100ms',
        store: createMemoryStore({ name: `retry-place-${place}` }),
      });
      const log: string[] = [];
      let calls = 0;
      const start = now();
      const flaky = throttler.schedule(
        () => {
          calls += 1;
          log.push(`r${calls}`);
          if (calls <= 2) throw new Error('boom');
        },
        { retry: { retries: 2, backoff: () => 100, place } },
      );
      const backlog = Array.from({ length: 5 }, (_, index) => throttler.schedule(() => void log.push(`t${index}`)));
      await advance(5_000);
      await Promise.all([flaky, ...backlog]);
      await throttler.stop();
      if (place === 'keep') expect(log).toEqual(['r1', 'r2', 'r3', 't0', 't1', 't2', 't3', 't4']);
      else expect(log).toEqual(['r1', 't0', 't1', 't2', 't3', 't4', 'r2', 'r3']);
      expect(now() - start).toBe(5_000);
    }
  });

  it("with fairness 'weighted': ahead of its own key's later tasks, the keys sharing as their weights say", async () => {
    const throttler = createThrottler({
      rate: '1/100ms',
      strategy: 'sliding-window',
      keys: { rate: '100/1s' },
      fairness: 'weighted',
    });
    const log: string[] = [];
    let calls = 0;
    const flaky = throttler.schedule(
      () => {
        calls += 1;
        log.push(`a-r${calls}`);
        if (calls === 1) throw new Error('once');
      },
      { channel: 'a', retry: { retries: 1, backoff: () => 50 } },
    );
    const tasks = ['a', 'b', 'a', 'b', 'a', 'b'].map((key, index) =>
      throttler.schedule(() => void log.push(`${key}${index}`), { channel: key }),
    );
    await advance(5_000);
    await Promise.all([flaky, ...tasks]);
    await throttler.stop();
    // From 100 ms a and b alternate (a's first attempt went straight through, before either was backlogged):
    // a's retry is a's turn, taken before a's tasks that arrived after it; ties between the keys' tags go to
    // the earlier place, the retry's.
    expect(log).toEqual(['a-r1', 'a-r2', 'b1', 'a0', 'b3', 'a2', 'b5', 'a4']);
  });

  it('retry.place is checked, naming the field and the value', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const refused = throttler.schedule(() => 1, { retry: { retries: 1, place: 'front' as 'keep' } });
    await expect(refused).rejects.toThrow(ThrottlerOptionError);
    await expect(refused).rejects.toThrow(
      'retry.place must be "keep" (its place in line, the default) or "back", got "front"',
    );
    expect(() =>
      createThrottler({ rate: '10/1s', taskDefaults: { retry: { retries: 1, place: 1 as never } } }),
    ).toThrow(/taskDefaults\.retry\.place/);
    void throttler.stop();
  });
});
