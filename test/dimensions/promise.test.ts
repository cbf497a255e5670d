import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerOptionError } from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('the promise API with several dimensions', () => {
  it('schedules tasks by a cost per dimension: every rate of every dimension holds', async () => {
    const throttler = createThrottler({
      rate: { requests: '10/1s', tokens: ['1000/1s', '1500/2s'] },
      strategy: 'sliding-window',
    });
    const starts: Array<[string, number]> = [];
    const task = (name: string) => () => starts.push([name, now()]);
    void throttler.schedule(task('a'), { cost: { requests: 1, tokens: 800 } });
    void throttler.schedule(task('b'), { cost: { requests: 1, tokens: 400 } });
    void throttler.schedule(task('c'), { cost: { requests: 1, tokens: 300 } });
    await advance(3_000);
    // b waits for a to leave the 1s window; c then finds 1500/2s full (800 + 400 + 300 = 1500 fits).
    expect(starts).toEqual([
      ['a', 0],
      ['b', 1_000],
      ['c', 1_000],
    ]);
    await throttler.stop();
  });

  it('refuses a bad cost at the call, naming the field and the value', async () => {
    const throttler = createThrottler({ rate: { requests: '10/1s', tokens: '1000/1s' }, strategy: 'sliding-window' });
    const refused = throttler.schedule(() => 1, { cost: { tokens: 1001 } });
    await expect(refused).rejects.toThrow(ThrottlerOptionError);
    await expect(refused).rejects.toMatchObject({ option: 'cost.tokens', value: 1001 });
    await expect(throttler.schedule(() => 1, { cost: { images: 1 } })).rejects.toMatchObject({ option: 'cost.images' });
    await throttler.stop();
  });

  it('acquire and tryAcquire take a cost per dimension; a task without one costs 1 in every dimension', async () => {
    const throttler = createThrottler({ rate: { requests: '2/1s', tokens: '100/1s' }, strategy: 'sliding-window' });
    expect(throttler.tryAcquire({ tokens: 100 })).toBe(0);
    expect(throttler.tryAcquire({ tokens: 1 })).toBe(1_000);
    // A task without options goes by a lease: each permit costs 1 in every dimension (tokens are spent).
    const starts: number[] = [];
    void throttler.schedule(() => starts.push(now()));
    await advance(0);
    expect(starts).toEqual([]);
    await advance(1_000);
    expect(starts).toEqual([1_000]);
    const waited = throttler.acquire({ requests: 1 });
    await advance(0);
    await expect(waited).resolves.toBe(0);
    await throttler.stop();
  });

  it('counts until done per dimension: the settle names the cost as scheduled', async () => {
    const throttler = createThrottler({
      rate: { requests: '5/1s', tokens: '100/1s' },
      strategy: 'sliding-window',
      countUntil: 'done',
    });
    const starts: Array<[string, number]> = [];
    const slow = (name: string, ms: number) => () =>
      new Promise<void>((resolve) => {
        starts.push([name, now()]);
        setTimeout(resolve, ms);
      });
    void throttler.schedule(slow('a', 500), { cost: { requests: 1, tokens: 100 } });
    void throttler.schedule(slow('b', 0), { cost: { tokens: 1 } });
    await advance(3_000);
    // b waits for a to settle (at 500) and its window to pass (1500).
    expect(starts).toEqual([
      ['a', 0],
      ['b', 1_500],
    ]);
    await throttler.stop();
  });

  it('setRate: a dimension map, the dimensions it leaves out kept; a plain rate is refused at the call', async () => {
    const throttler = createThrottler({ rate: { requests: '5/1s', tokens: '100/1s' }, strategy: 'sliding-window' });
    expect(() => throttler.setRate('10/1s')).toThrow(ThrottlerOptionError);
    expect(() => throttler.setRate({ images: '10/1s' })).toThrow(/rate\.images/);
    throttler.setRate({ tokens: '10/1s' });
    expect(throttler.tryAcquire({ requests: 5 })).toBe(0);
    expect(throttler.tryAcquire({ tokens: 10 })).toBe(0);
    expect(throttler.tryAcquire({ tokens: 1 })).toBe(1_000);
    await throttler.stop();
  });
});
