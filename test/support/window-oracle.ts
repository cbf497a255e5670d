import type { WindowFindings } from '../../src/engine/audit/window-audit.js';

/** A delivery in a log in time order: the audit's input and the oracle's. */
export interface TimedCost {
  at: number;
  cost: number;
}

/**
 * The brute force: the window closed by delivery k holds every delivery j with `at_j <= at_k` and
 * `at_j + interval > at_k` (the policies' arithmetic), those at k's own time included whatever their order,
 * found by scanning the log back from k (and on past k over those at its time). No ring, no running total.
 */
export function bruteForceFindings(log: readonly TimedCost[], limit: number, interval: number): WindowFindings {
  const found: WindowFindings = { most: 0, mostAt: undefined, windowsOver: 0 };
  for (let k = 0; k < log.length; k += 1) {
    const closing = log[k] as TimedCost;
    let held = 0;
    for (let j = k; j >= 0 && (log[j] as TimedCost).at + interval > closing.at; j -= 1)
      held += (log[j] as TimedCost).cost;
    for (let j = k + 1; j < log.length && (log[j] as TimedCost).at === closing.at; j += 1)
      held += (log[j] as TimedCost).cost;
    if (held > found.most) {
      found.most = held;
      found.mostAt = closing.at;
    }
    if (held > limit) found.windowsOver += 1;
  }
  return found;
}
