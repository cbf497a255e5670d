import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Run {
  ordering: string;
  keys: number;
  perKey: number;
  delivered: number;
  maxLiveKeys: number;
  finalLiveKeys: number;
  maxQueued: number;
  heapAt100kMB: number;
  heapAtEndMB: number;
  seconds: number;
}

/**
 * Memory is bounded by the keys used recently, not by every key ever seen: 300,000 distinct keys
 * over virtual time, 100 new ones a millisecond, each kept 100 ms after its last use. Run in a process
 * of its own with --expose-gc (test/support/keyed-memory.ts), so that the heap is measured collected.
 */
describe('keyed limits, 300,000 distinct keys (virtual time)', () => {
  it('holds only the keys used in the last 100 ms, and its heap stays flat from 100,000 keys to the end', () => {
    const script = fileURLToPath(new URL('../support/keyed-memory.ts', import.meta.url));
    const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    const [fifo, perChannel] = JSON.parse(output) as [Run, Run];
    for (const run of [fifo, perChannel]) {
      console.log(
        `${run.keys.toLocaleString('en')} keys (${run.ordering}, ${run.perKey} per key): at most ${run.maxLiveKeys} ` +
          `live, ${run.finalLiveKeys} at the end, at most ${run.maxQueued} waiting; heap ` +
          `${run.heapAt100kMB.toFixed(1)} MB after 100,000 keys, ${run.heapAtEndMB.toFixed(1)} MB at the end ` +
          `(${run.seconds.toFixed(1)} s)`,
      );
    }
    expect(fifo.delivered).toBe(300_000);
    // 100 keys a ms, each kept until idle for more than 100 ms: 10,100 at most, swept as new keys come.
    expect(fifo.maxLiveKeys).toBeLessThanOrEqual(10_100);
    // The second message of each waits 100 ms, then the key is kept 100 ms more: about twice as many.
    expect(perChannel.delivered).toBeGreaterThanOrEqual(2 * perChannel.keys - perChannel.maxQueued);
    expect(perChannel.maxLiveKeys).toBeLessThanOrEqual(20_200);
    expect(perChannel.maxQueued).toBeLessThanOrEqual(10_000);
    // Flat. Kept for good (idleAfter '1h'), keys took 0.94 MB per 1,000 in the same run: 190 MB for the 200,000 after the first 100,000.
    expect(fifo.heapAtEndMB - fifo.heapAt100kMB).toBeLessThan(5);
    expect(perChannel.heapAtEndMB - perChannel.heapAt100kMB).toBeLessThan(5);
  }, 300_000);
});
