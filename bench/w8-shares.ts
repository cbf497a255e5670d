/**
 * W8 with weights (`w8-weighted`): each heavy key's share of what the heavy keys obtained, per window
 * of the overall interval on the grants' Redis times, against `w / Σw` of the heavy keys' weights (the
 * light keys take what they ask, one message each, so the heavy keys share the rest by weight).
 */
import type { Scenario } from './w8-judge.js';
import type { W8Report } from './w8-worker.js';

export interface W8Shares {
  /** Per heavy key: its weight, its share over the whole run, and `w / Σw`. */
  keys: Array<{ key: string; weight: number; share: number; fair: number }>;
  /** Windows judged, and the largest gap in any window between a heavy key's count and its fair part. */
  windows: number;
  worstGap: number;
}

export function w8Shares(scenario: Scenario, reports: readonly W8Report[]): W8Shares {
  const weights = scenario.weights ?? [];
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  const grants: Array<[number, number]> = [];
  for (const [p, report] of reports.entries()) {
    const { key } = scenario.schedule[p] as { key: number[] };
    for (const [index, at] of (report.grantAt ?? []).entries()) {
      const k = key[index] as number;
      if (at !== null && at !== undefined && k < scenario.heavy) grants.push([at, k]);
    }
  }
  grants.sort((a, b) => a[0] - b[0]);
  const interval = scenario.overall.interval;
  const first = (grants[0]?.[0] ?? 0) + 2 * interval;
  const last = (grants.at(-1)?.[0] ?? 0) - 2 * interval;
  const whole = new Array<number>(scenario.heavy).fill(0);
  let windows = 0;
  let worstGap = 0;
  for (let from = first; from + interval <= last; from += interval) {
    const got = new Array<number>(scenario.heavy).fill(0);
    for (const [at, k] of grants) if (at >= from && at < from + interval) got[k] = (got[k] as number) + 1;
    const total = got.reduce((sum, n) => sum + n, 0);
    for (const [k, n] of got.entries()) {
      worstGap = Math.max(worstGap, Math.abs(n - (total * (weights[k] ?? 1)) / totalWeight));
      whole[k] = (whole[k] as number) + n;
    }
    windows += 1;
  }
  const all = whole.reduce((sum, n) => sum + n, 0);
  return {
    keys: whole.map((n, k) => ({
      key: scenario.keys[k] as string,
      weight: weights[k] ?? 1,
      share: all === 0 ? 0 : n / all,
      fair: (weights[k] ?? 1) / totalWeight,
    })),
    windows,
    worstGap,
  };
}
