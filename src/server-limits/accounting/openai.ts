/**
 * OpenAI's accounting (https://platform.openai.com/docs/guides/rate-limits, "Reduce the max_tokens to
 * match the size of your completions"): "Your rate limit is calculated as the maximum of max_tokens and
 * the estimated number of tokens based on the character count of your request." The charge is fixed when
 * the request is made and nothing is given back when the answer is shorter, so there is no settle: a
 * client that settles to `usage.total_tokens` counts room the server never gives back.
 */
import { type ChargeOptions, inputEstimate, maxTokensOf } from './request-size.js';
import type { ProviderAccounting } from './types.js';

/** A request's charge against OpenAI's quotas: one request, and the tokens of the larger of its two counts. */
export type OpenAICharge = { requests: number; tokens: number };

/** The fields OpenAI's APIs name the most the model may write, the newest first (chat, completions, responses). */
export const OPENAI_MAX_TOKENS_FIELDS: readonly string[] = ['max_completion_tokens', 'max_tokens', 'max_output_tokens'];

/**
 * `{ requests: 1, tokens: max(max_tokens, size estimate) }` for the request body `body` (chat completions,
 * completions or responses): the size estimate from its characters ([request-size](./request-size.ts)).
 * Throws a ThrottlerOptionError naming the field that is missing or malformed (`body.max_tokens`, `body.messages[0].content`).
 */
export function openaiCharge(body: unknown, options?: ChargeOptions): OpenAICharge {
  const estimate = inputEstimate(body, options);
  return { requests: 1, tokens: Math.max(maxTokensOf(body, OPENAI_MAX_TOKENS_FIELDS), estimate) };
}

/**
 * OpenAI: charged at the request by `openaiCharge`, nothing settled, counted per minute (the reset
 * fields say when a quota is back "to its initial state"): followed with `sliding-window`.
 */
export const openaiAccounting: ProviderAccounting<OpenAICharge, never> = {
  provider: 'openai',
  refill: 'sliding-window',
  strategy: 'sliding-window',
  charge: openaiCharge,
  settle: undefined,
};
