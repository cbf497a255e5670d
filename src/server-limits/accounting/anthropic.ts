/**
 * Anthropic's accounting (https://platform.claude.com/docs/en/api/rate-limits): requests, input tokens
 * and output tokens are limited apart (RPM, ITPM, OTPM). "ITPM rate limits are estimated at the beginning
 * of each request, and the estimate is adjusted during the request to reflect the actual number of input
 * tokens used"; "OTPM rate limits are estimated based on `max_tokens` at the beginning of each request,
 * and the estimate is adjusted at the end of the request to reflect the actual number of output tokens
 * used"; "The API uses the token bucket algorithm to do rate limiting. This means that your capacity is
 * continuously replenished up to your maximum limit, rather than being reset at fixed intervals." The
 * dimensions are named as `serverLimits` names Anthropic's quotas: `requests`, `input-tokens`, `output-tokens`.
 */
import { ThrottlerOptionError } from '../../rate/index.js';
import { type ChargeOptions, inputEstimate, isCount, maxTokensOf, objectAt } from './request-size.js';
import type { ProviderAccounting } from './types.js';

/** A request's charge against Anthropic's quotas. */
export type AnthropicCharge = { requests: number; 'input-tokens': number; 'output-tokens': number };

/** What an answer settles a request's tokens to; the request stands. */
export type AnthropicSettled = { 'input-tokens': number; 'output-tokens': number };

/**
 * `{ requests: 1, 'input-tokens': size estimate, 'output-tokens': max_tokens }` for the Messages API body
 * `body` (`system`, `messages`, `max_tokens`). Throws a ThrottlerOptionError naming the field that is
 * missing or malformed.
 */
export function anthropicCharge(body: unknown, options?: ChargeOptions): AnthropicCharge {
  const input = inputEstimate(body, options);
  return { requests: 1, 'input-tokens': input, 'output-tokens': maxTokensOf(body, ['max_tokens']) };
}

/**
 * The tokens a Messages API answer `message` used, as Anthropic's limits count them: input tokens are
 * `usage.input_tokens` plus `usage.cache_creation_input_tokens` (cache reads do not count toward ITPM on
 * most current models), output tokens `usage.output_tokens`. Throws a ThrottlerOptionError naming the
 * field (`answer.usage.output_tokens`) when it is missing or not a whole number: an answer without usage
 * (an error) is not settled, and keeps its charge.
 */
export function anthropicSettle(answer: unknown): AnthropicSettled {
  const usage = objectAt(objectAt(answer, 'answer', 'a Messages API answer').usage, 'answer.usage', 'an object');
  const count = (name: string, optional: boolean): number => {
    const value = usage[name];
    if (optional && value === undefined) return 0;
    if (!isCount(value)) throw new ThrottlerOptionError(`answer.usage.${name}`, 'a whole number, 0 or more', value);
    return value;
  };
  return {
    'input-tokens': count('input_tokens', false) + count('cache_creation_input_tokens', true),
    'output-tokens': count('output_tokens', false),
  };
}

/**
 * Anthropic: charged by `anthropicCharge`, settled by `anthropicSettle`, refilled continuously (a token
 * bucket); followed with `sliding-window`: a window of sends holding at most the limit never takes more
 * than a bucket of that capacity and refill gives, where a throttler's own bucket, full after idle, may
 * send one request past it (docs/llm-clients.md, measured).
 */
export const anthropicAccounting: ProviderAccounting<AnthropicCharge, AnthropicSettled> = {
  provider: 'anthropic',
  refill: 'token-bucket',
  strategy: 'sliding-window',
  charge: anthropicCharge,
  settle: anthropicSettle,
};
