/**
 * W7 in its quick mode (1 s windows, 40 requests, one guess), every provider and every contender: the harness
 * runs, every request is answered in the end, no sliding window of the provider held more than its limit, and
 * the report renders with the targets judged. Nothing about real elapsed time, nor the shares, is asserted:
 * the machine running the tests may be busy (W7's numbers come from the bench, bench/README.md). The steady
 * mean and the fullest window are checked against hand-made arrivals.
 */
import { describe, expect, it } from 'vitest';
import type { BenchResults } from '../../bench/bench-results.js';
import { w7Configurations, w7Tables, w7Targets, w7Workload } from '../../bench/report-w7.js';
import {
  fullestWindow,
  guessTokens,
  LLM_QUOTA_DEFAULTS,
  LLM_QUOTA_QUICK,
  llmQuota,
  QUOTA_CONTENDERS,
  steadyMean,
} from '../../bench/w7-llm-quota.js';
import type { AcceptedRequest } from '../../examples/llm/model-limits.js';

const at = (times: number[], amount = 10): AcceptedRequest[] =>
  times.map((time) => ({ at: time, tokens: amount, counted: { tokens: amount } }));
const tokens = (request: AcceptedRequest) => request.counted.tokens ?? 0;

describe('bench W7 (a language-model quota)', () => {
  it('reads a window a burst per window as the burst, whatever the phase, and the widened period as W/(W+J)', () => {
    // A burst of 10 requests every 1000 ms, from 0 to 9000: every window of 1000 ms holds one burst.
    const bursts = Array.from({ length: 10 }, (_, k) => Array.from({ length: 10 }, () => k * 1000)).flat();
    expect(steadyMean(at(bursts), tokens, 1000)).toBeCloseTo(100, 6);
    expect(fullestWindow(at(bursts), tokens, 1000)).toBe(100);
    // Every 1250 ms (a window widened by 250): 80% of a window's worth per window.
    const widened = Array.from({ length: 20 }, (_, k) => k * 1250);
    expect(steadyMean(at(widened, 100), tokens, 1000) / 100).toBeCloseTo(0.8, 1);
    expect(steadyMean([], tokens, 1000)).toBe(0);
  });

  it('guesses from the shape: the mean rounded up, the largest, twice the mean', () => {
    const { shape } = LLM_QUOTA_DEFAULTS;
    expect(guessTokens('openai', 'mean', shape)).toBe(330);
    expect(guessTokens('openai', 'largest', shape)).toBe(500);
    expect(guessTokens('anthropic', 'largest', shape)).toBe(400);
    expect(guessTokens('actual-usage', 'twice-mean', shape)).toBe(875);
  });

  it('runs every contender against every provider to the end, and reports', async () => {
    const runs = await llmQuota(LLM_QUOTA_QUICK);
    const expected = LLM_QUOTA_QUICK.providers.flatMap((mode) =>
      QUOTA_CONTENDERS.filter((contender) => contender.providers?.includes(mode) ?? true).map(
        (contender) => `${mode} ${contender.name}`,
      ),
    );
    expect(runs.map((run) => `${run.provider} ${run.name}`).sort()).toEqual(expected.sort());
    for (const run of runs) {
      const label = `${run.provider} ${run.name}`;
      expect(run.error, label).toBeUndefined();
      expect(run.answered, label).toBe(LLM_QUOTA_QUICK.jobs);
      // A sliding window is never over at the provider; a bucket lets its capacity and a window's refill through.
      expect(run.fullest, label).toBeLessThanOrEqual(run.provider === 'anthropic' ? 2 : 1);
      expect(run.steadyCounted, label).toBeGreaterThan(0);
      expect(run.finishMs, label).toBeGreaterThan(0);
    }
    const results = { config: { w7: LLM_QUOTA_QUICK }, w7: runs } as unknown as BenchResults;
    const tables = w7Tables(results).join('\n');
    expect(tables).toContain('### W7 a language-model quota');
    expect(tables).toContain('#### anthropic');
    // Four targets for each configuration of ours against each provider.
    const ours = runs.filter((run) => run.name.startsWith('xstate-throttler'));
    expect(ours.length).toBeGreaterThan(LLM_QUOTA_QUICK.providers.length);
    expect(w7Targets(runs)).toHaveLength(4 * ours.length);
    expect(new Set(w7Targets(runs).map((target) => target.contender))).toEqual(
      new Set(['unpaced', 'pace', "countUntil: 'done'"]),
    );
    expect(w7Workload(results).join('\n')).toContain('**W7');
    expect(w7Configurations(results).join('\n')).toContain('p-queue');
  }, 180_000);
});
