import type { StrategyImplementation } from '../../policies/index.js';
import { type DurationInput, parseDuration, ThrottlerOptionError } from '../../rate/index.js';

/**
 * The `pace` option: spread each window's worth over the window instead of letting it go at the window's
 * start. `true`: over each rate's interval (widened by the transit spread); a duration: over at most that.
 * `false` or absent: no spacing.
 */
export type PaceInput = boolean | DurationInput;

const REQUIREMENT = 'true, false, or a positive duration (the most a window\'s worth is spread over, e.g. "1s")';

/**
 * `pace` checked: what the sliding window reads (`true`, a span in ms, or undefined for none), refused by name
 * where it would pace nothing: a strategy that spaces its deliveries already, or `countUntil: 'done'`, whose
 * deliveries are counted as they settle, not as they go.
 */
export function resolvePace(
  input: unknown,
  strategy: StrategyImplementation,
  countUntil: unknown,
): true | number | undefined {
  if (input === undefined || input === false) return undefined;
  const pace = input === true ? true : readSpan(input);
  if (strategy.paceRefusal !== undefined) {
    throw new ThrottlerOptionError(
      'pace',
      `false or absent with strategy "${strategy.name}": ${strategy.paceRefusal}`,
      input,
    );
  }
  if (countUntil === 'done') {
    throw new ThrottlerOptionError(
      'pace',
      'false or absent with countUntil "done" (a cost counts from its settle)',
      input,
    );
  }
  return pace;
}

function readSpan(input: unknown): number {
  if (typeof input !== 'number' && typeof input !== 'string')
    throw new ThrottlerOptionError('pace', REQUIREMENT, input);
  return parseDuration(input, 'pace');
}

/** With a store the shared window decides each grant, in the store: a pace it never sees would pace nothing. Refused by name. */
export function refusePaceWithStore(pace: true | number | undefined): void {
  if (pace === undefined) return;
  throw new ThrottlerOptionError('pace', 'false or absent with a store (its shared window decides every grant)', pace);
}
