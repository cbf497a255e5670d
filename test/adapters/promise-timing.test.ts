import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerExpiredError, ThrottlerOptionError } from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/** The promise API's per-task priority, maxWait and deadline (issue 14), in virtual time. */
beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('createThrottler: priority, maxWait and deadline per task', () => {
  it('starts the higher priority first among tasks waiting together, equal priorities in order', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const started: string[] = [];
    const task = (name: string) => () => started.push(name);
    // The first goes at once; the rest wait, and go one a second by priority.
    const all = [
      throttler.schedule(task('first')),
      throttler.schedule(task('low'), { priority: 1 }),
      throttler.schedule(task('default')),
      throttler.schedule(task('high'), { priority: 9 }),
      throttler.schedule(task('high too'), { priority: 9 }),
    ];
    await advance(4_000);
    await Promise.all(all);
    expect(started).toEqual(['first', 'high', 'high too', 'default', 'low']);
    throttler.stop();
  });

  it('rejects a task that cannot start within its maxWait with a ThrottlerExpiredError, and runs the rest', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const started: string[] = [];
    const first = throttler.schedule(() => started.push('first'));
    const hurried = throttler.schedule(() => started.push('hurried'), { maxWait: 500 });
    const patient = throttler.schedule(() => started.push('patient'), { maxWait: 5_000 });
    const settled = hurried.then(
      () => 'resolved',
      (error: unknown) => ({ error, at: now() }),
    );
    await advance(2_000);
    const outcome = (await settled) as { error: ThrottlerExpiredError; at: number };
    expect(outcome.error).toBeInstanceOf(ThrottlerExpiredError);
    expect(outcome.error.name).toBe('ThrottlerExpiredError');
    expect(outcome.error.message).toMatch(/deadline/);
    // Dropped at its deadline, by the one timer: not when the next task went.
    expect(outcome.at).toBe(500);
    await first;
    await patient;
    expect(started).toEqual(['first', 'patient']);
    expect(throttler.counts).toMatchObject({ delivered: 2, dropped: 1, queued: 0 });
    throttler.stop();
  });

  it('takes a deadline on the throttler clock, and maxWait 0 starts a task only if it can go at once', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const started: string[] = [];
    const now0 = await throttler.schedule(() => now(), { maxWait: 0 });
    const late = throttler.schedule(() => started.push('late'), { maxWait: 0 });
    const byDeadline = throttler.schedule(() => started.push('by deadline'), { deadline: now0 + 1_000 });
    await expect(late).rejects.toBeInstanceOf(ThrottlerExpiredError);
    await advance(1_000);
    await byDeadline;
    expect(started).toEqual(['by deadline']);
    throttler.stop();
  });

  it('rejects a task with a bad priority, maxWait or deadline by name, and keeps running', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const bad = [
      throttler.schedule(() => 1, { priority: 10 }),
      throttler.schedule(() => 1, { priority: '5' as unknown as number }),
      throttler.schedule(() => 1, { maxWait: -1 }),
      throttler.schedule(() => 1, { maxWait: Number.NaN }),
      throttler.schedule(() => 1, { deadline: 'soon' as unknown as number }),
      throttler.schedule(() => 1, { deadline: 5, maxWait: 5 }),
    ];
    const good = throttler.schedule(() => 'still running', { priority: 0, maxWait: Number.POSITIVE_INFINITY });
    const errors = await Promise.all(bad.map((promise) => promise.catch((error: unknown) => error)));
    for (const error of errors) expect(error).toBeInstanceOf(ThrottlerOptionError);
    expect((errors as Error[]).map((error) => error.message.split(' ')[0])).toEqual([
      'priority',
      'priority',
      'maxWait',
      'maxWait',
      'deadline',
      'deadline',
    ]);
    expect((errors[0] as Error).message).toMatch(/got 10/);
    await expect(good).resolves.toBe('still running');
    expect(throttler.counts).toMatchObject({ delivered: 1, rejected: 6 });
    throttler.stop();
  });

  it('does the same with a bounded queue (one QUEUE per task)', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window', capacity: 10 });
    const started: string[] = [];
    throttler.schedule(() => started.push('first'));
    const expired = throttler.schedule(() => started.push('expired'), { maxWait: 100 });
    const low = throttler.schedule(() => started.push('low'), { priority: 0 });
    const high = throttler.schedule(() => started.push('high'), { priority: 9 });
    const expiry = expect(expired).rejects.toBeInstanceOf(ThrottlerExpiredError);
    await advance(2_000);
    await expiry;
    await Promise.all([low, high]);
    expect(started).toEqual(['first', 'high', 'low']);
    throttler.stop();
  });

  it('passes priority and maxWait through wrap and acquire', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const order: string[] = [];
    const wrapped = throttler.wrap((name: string) => order.push(name), { priority: 9 });
    throttler.schedule(() => order.push('first'));
    const plain = throttler.schedule(() => order.push('plain'));
    const urgent = wrapped('wrapped');
    const permit = throttler.acquire(1, { maxWait: 10 });
    const expiry = expect(permit).rejects.toBeInstanceOf(ThrottlerExpiredError);
    await advance(2_000);
    await expiry;
    await Promise.all([plain, urgent]);
    expect(order).toEqual(['first', 'wrapped', 'plain']);
    throttler.stop();
  });
});
