import { describe, expect, it } from 'vitest';
import { runOtelBench } from '../../bench/w1-otel.js';

/** bench/w1-otel.ts at a tiny size: every path, plain and instrumented, runs every task exactly once. */
describe('the OpenTelemetry overhead bench', () => {
  it('runs each path plain and instrumented to completion, timed on both clocks', async () => {
    const results = await runOtelBench(500, 2);
    expect(results.map(({ path }) => path)).toEqual(['promise', 'machine', 'queued first']);
    for (const { plain, otel } of results) {
      expect(plain).toHaveLength(2);
      expect(otel).toHaveLength(2);
      for (const run of [...plain, ...otel]) {
        expect(run.complete).toBe(true);
        expect(run.wall).toBeGreaterThan(0);
        expect(run.cpu).toBeGreaterThanOrEqual(0);
      }
    }
  }, 60_000);
});
