import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { createThrottler as createLeanThrottler, overflow } from '../../src/lean/index.js';
import { slidingWindow } from '../../src/strategies/index.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const missing = (rule: string) =>
  `features must be a list holding overflow for overflow "${rule}": import { overflow } from "xstate-throttler/lean" ` +
  'and pass features: [overflow] (the main entry, "xstate-throttler", loads every feature), got an array of 0';

/** Five tasks into a queue of two behind one running, 1 per second: how each ends. */
async function fiveIntoTwo(create: typeof createThrottler, extra: object) {
  const throttler = create({ rate: '1/1s', strategy: slidingWindow, capacity: 2, overflow: 'drop-oldest', ...extra });
  const ends = Array.from({ length: 5 }, (_, index) =>
    throttler.schedule(() => index).catch((error: Error) => error.name),
  );
  for (let step = 0; step < 30; step += 1) {
    advance(100);
    await Promise.resolve();
  }
  throttler.stop();
  return Promise.all(ends);
}

/**
 * `overflow: 'drop-oldest'` and `'drop-newest'` (engine/queue/overflow-choice.ts) load on xstate-throttler/lean
 * only with the `overflow` feature; without it either is refused at creation with what to import. A capacity
 * with the default, 'reject', needs nothing. The main entry loads it by itself.
 */
describe('the overflow feature', () => {
  it('lean: with it, a full queue gives up its oldest, as the main entry does', async () => {
    const lean = await fiveIntoTwo(createLeanThrottler, { features: [overflow] });
    expect(lean.filter((end) => end === 'ThrottlerOverflowError')).toHaveLength(2);
    expect(await fiveIntoTwo(createThrottler, {})).toEqual(lean);
  });

  it("lean: without it, 'drop-oldest' and 'drop-newest' are refused; 'reject' needs nothing", async () => {
    for (const rule of ['drop-oldest', 'drop-newest'] as const) {
      expect(() => createLeanThrottler({ rate: '1/1s', strategy: slidingWindow, capacity: 2, overflow: rule })).toThrow(
        missing(rule),
      );
    }
    const throttler = createLeanThrottler({ rate: '1/1s', strategy: slidingWindow, capacity: 1 });
    const ends = [1, 2, 3].map(() => throttler.schedule(() => 'ran').catch((error: Error) => error.name));
    advance(2_000);
    for (let turn = 0; turn < 5; turn += 1) await Promise.resolve();
    throttler.stop();
    expect(await Promise.all(ends)).toContain('ThrottlerOverflowError');
  });
});
