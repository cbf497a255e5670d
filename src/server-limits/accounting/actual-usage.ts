/**
 * A gateway that counts what each answer used (LiteLLM's "reservation" after Bedrock's: token limits
 * "enforced before the upstream call, then reconciled after the response"): a request reserves an upper
 * bound, its input's size estimate plus `max_tokens`, and is settled to the tokens its answer used.
 */
import { ThrottlerOptionError } from '../../rate/index.js';
import { OPENAI_MAX_TOKENS_FIELDS } from './openai.js';
import { type ChargeOptions, inputEstimate, isCount, maxTokensOf, objectAt } from './request-size.js';
import type { ProviderAccounting } from './types.js';

/** A request's reservation: one request, and at most the tokens its input and answer may take. */
export type ActualUsageCharge = { requests: number; tokens: number };

/** What an answer settles the tokens to; the request stands. */
export type ActualUsageSettled = { tokens: number };

/** `{ requests: 1, tokens: size estimate + max_tokens }` for `body` (OpenAI's or Anthropic's form). */
export function actualUsageCharge(body: unknown, options?: ChargeOptions): ActualUsageCharge {
  const input = inputEstimate(body, options);
  return { requests: 1, tokens: input + maxTokensOf(body, OPENAI_MAX_TOKENS_FIELDS) };
}

/**
 * `{ tokens }` from the answer's `usage`: `total_tokens` (OpenAI's form), or `input_tokens + output_tokens`
 * (Anthropic's). Throws a ThrottlerOptionError naming the field when neither is there as whole numbers.
 */
export function actualUsageSettle(answer: unknown): ActualUsageSettled {
  const usage = objectAt(objectAt(answer, 'answer', 'an answer with usage').usage, 'answer.usage', 'an object');
  if (usage.total_tokens !== undefined) {
    if (!isCount(usage.total_tokens)) {
      throw new ThrottlerOptionError('answer.usage.total_tokens', 'a whole number, 0 or more', usage.total_tokens);
    }
    return { tokens: usage.total_tokens };
  }
  for (const name of ['input_tokens', 'output_tokens']) {
    if (!isCount(usage[name])) {
      throw new ThrottlerOptionError(
        `answer.usage.${name}`,
        'a whole number, 0 or more (or usage.total_tokens)',
        usage[name],
      );
    }
  }
  return { tokens: (usage.input_tokens as number) + (usage.output_tokens as number) };
}

/** A gateway counting actual usage: reserve with `actualUsageCharge`, settle with `actualUsageSettle`; windows as it states. */
export const actualUsageAccounting: ProviderAccounting<ActualUsageCharge, ActualUsageSettled> = {
  provider: 'actual-usage',
  refill: 'sliding-window',
  strategy: 'sliding-window',
  charge: actualUsageCharge,
  settle: actualUsageSettle,
};
