import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ResolvedBudget, RetryLedger } from '../../src/adapters/retry-budget.js';
import { runs } from '../support/property-runs.js';

/**
 * The retry budget's ledger against a brute-force oracle that keeps every record for ever and counts the
 * window by a full scan: at each decision at time t, A = first attempts started in (t - window, t], R = retries
 * granted there, and a retry is granted exactly when R + 1 <= max(min, ratio × A).
 */
const step = fc.oneof(
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
  fc.record({ kind: fc.constant('start' as const) }),
  fc.record({ kind: fc.constant('retry' as const), budget: fc.integer({ min: 0, max: 1 }) }),
);

describe('RetryLedger', () => {
  it('grants exactly what the definition of the budget grants, with two budgets of different windows', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 300 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 3 }),
        (steps, ratio, min) => {
          const budgets: ResolvedBudget[] = [
            { ratio, window: 10_000, min },
            { ratio: ratio / 2, window: 2_500, min: 0 },
          ];
          let at = 0;
          const ledger = new RetryLedger(() => at);
          for (const budget of budgets) ledger.uses(budget);
          const starts: number[] = [];
          const grants: number[] = [];
          for (const current of steps) {
            if (current.kind === 'advance') at += current.ms;
            else if (current.kind === 'start') {
              ledger.firstAttemptStarted();
              starts.push(at);
            } else {
              const budget = budgets[current.budget] as ResolvedBudget;
              const since = at - budget.window;
              const attempts = starts.filter((time) => time > since).length;
              const granted = grants.filter((time) => time > since).length;
              const expected = granted + 1 <= Math.max(budget.min, budget.ratio * attempts);
              expect(ledger.grant(budget)).toBe(expected);
              if (expected) grants.push(at);
            }
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
