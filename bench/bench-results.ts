/**
 * What a bench run keeps (bench/results.json): the configuration and each workload's results, and
 * the targets they are judged by. Its own file so that the report and the later workloads' tables
 * share it without importing each other.
 */
import type { RateSpec } from './contenders.js';
import type { OverheadResult } from './w1-overhead.js';
import type { BurstMemoryResult } from './w2-burst-memory.js';
import type { StrictnessOptions, StrictnessResult } from './w3-strictness.js';
import type { ScalingResult } from './w4-scaling.js';
import type { AtTheLimitOptions, AtTheLimitResult } from './w5-at-the-limit.js';
import type { SharedLimitOptions, SharedLimitResult } from './w6-shared-limit.js';
import type { LlmQuotaOptions, LlmQuotaRun } from './w7-llm-quota.js';

export interface BenchResults {
  config: {
    w1: { size: number; rounds: number };
    w2: { size: number; rounds: number; rate: RateSpec };
    w3: StrictnessOptions;
    w4: { small: number; large: number; rounds: number };
    /** W5 and W6 came later: results from before them have neither. */
    w5?: AtTheLimitOptions;
    w6?: SharedLimitOptions & { server: string };
    /** W7 came later still. */
    w7?: LlmQuotaOptions;
  };
  w1: OverheadResult[];
  w2: BurstMemoryResult[];
  w3: StrictnessResult[];
  w4: ScalingResult[];
  w5?: AtTheLimitResult[];
  w6?: SharedLimitResult[];
  w7?: LlmQuotaRun[];
  /** The last full run's duration. */
  totalSeconds: number;
  /** Workloads run on their own since (`npm run bench -- --only w5,w6`), and how long each took, in s. */
  separately?: Record<string, number>;
}

export interface Target {
  workload: string;
  target: string;
  measured: string;
  met: boolean;
}
