import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { createThrottler as createLeanThrottler, rateLimitWatch } from '../../src/lean/index.js';
import { slidingWindow } from '../../src/strategies/index.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const missing = (reader: string) =>
  `features must be a list holding rateLimitWatch for ${reader}: import { rateLimitWatch } from ` +
  '"xstate-throttler/lean" and pass features: [rateLimitWatch] (the main entry, "xstate-throttler", loads every ' +
  'feature), got an array of 0';

/** Three tasks through 1 per second: what the rate-limit readers say and tell until the last has run. */
async function rateLimitStory(create: typeof createThrottler, extra: object) {
  const throttler = create({ rate: '1/1s', strategy: slidingWindow, ...extra });
  const told: string[] = [];
  throttler.on('rateLimit', () => told.push('rateLimit'));
  throttler.on('rateLimitCleared', () => told.push('rateLimitCleared'));
  const tasks = Array.from({ length: 3 }, () => throttler.schedule(() => 'done'));
  await Promise.resolve();
  const limited = [throttler.isRateLimited, throttler.isSaturated];
  const cleared = throttler.onRateLimitCleared();
  for (let step = 0; step < 30; step += 1) {
    advance(100);
    await Promise.resolve();
  }
  await cleared;
  await Promise.all(tasks);
  throttler.stop();
  return { limited, told, after: throttler.isRateLimited };
}

/**
 * p-queue's rate-limit readers on the promise API (adapters/rate-limit-watch.ts) load on xstate-throttler/lean
 * only with the `rateLimitWatch` feature; without it each is refused with what to import. The main entry loads
 * it by itself. `size`, `pending`, `onIdle` and the other readers need no feature.
 */
describe('the rateLimitWatch feature', () => {
  it('lean: with it, the readers say and tell what the main entry does', async () => {
    const lean = await rateLimitStory(createLeanThrottler, { features: [rateLimitWatch] });
    expect(lean).toEqual({ limited: [true, true], told: ['rateLimit', 'rateLimitCleared'], after: false });
    expect(await rateLimitStory(createThrottler, {})).toEqual(lean);
  });

  it('lean: without it, each reader is refused, naming it and what to import; the others answer', async () => {
    const throttler = createLeanThrottler({ rate: '1/1s', strategy: slidingWindow });
    expect(() => throttler.isRateLimited).toThrow(missing('isRateLimited'));
    expect(() => throttler.isSaturated).toThrow(missing('isSaturated'));
    expect(() => throttler.onRateLimit()).toThrow(missing('onRateLimit()'));
    expect(() => throttler.onRateLimitCleared()).toThrow(missing('onRateLimitCleared()'));
    expect(() => throttler.on('rateLimit', () => {})).toThrow(missing("on('rateLimit')"));
    expect(() => throttler.on('rateLimitCleared', () => {})).toThrow(missing("on('rateLimitCleared')"));
    const done = throttler.schedule(() => 'done');
    expect(throttler.size + throttler.pending).toBe(1);
    await expect(done).resolves.toBe('done');
    await throttler.onIdle();
    // clear() tells the watch nothing without one.
    throttler.clear();
    throttler.stop();
  });
});
