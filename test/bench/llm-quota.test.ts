/**
 * W7 at a tiny size, every contender: the harness runs, every request is answered in the end, the server
 * never accepted more than its limit, and the report renders. Nothing about real elapsed time is asserted.
 */
import { describe, expect, it } from 'vitest';
import type { BenchResults } from '../../bench/bench-results.js';
import { w7Configurations, w7Tables, w7Workload } from '../../bench/report-w7.js';
import { type LlmQuotaOptions, llmQuota, QUOTA_CONTENDERS } from '../../bench/w7-llm-quota.js';

const TINY_W7: LlmQuotaOptions = {
  requests: 20,
  tokens: 2_000,
  windowMs: 1_000,
  jobs: 20,
  maxTokens: 100,
  guesses: [300],
  seed: 3,
};

describe('bench W7 (a language-model quota)', () => {
  it('runs every contender to the end within the server limits, and reports', async () => {
    const runs = await llmQuota(TINY_W7);
    expect(runs.map((run) => run.name)).toEqual(QUOTA_CONTENDERS.map((contender) => contender.name));
    for (const run of runs) {
      expect(run.error, run.name).toBeUndefined();
      expect(run.answered, run.name).toBe(TINY_W7.jobs);
      expect(run.mostTokens, run.name).toBeLessThanOrEqual(TINY_W7.tokens);
      expect(run.meanTokens, run.name).toBeGreaterThan(0);
      expect(run.finishMs, run.name).toBeGreaterThan(0);
    }
    const results = { config: { w7: TINY_W7 }, w7: runs } as unknown as BenchResults;
    expect(w7Tables(results).join('\n')).toContain('### W7 a language-model quota');
    expect(w7Workload(results).join('\n')).toContain('**W7');
    expect(w7Configurations(results).join('\n')).toContain('p-queue');
  }, 120_000);
});
