import type { ChargeOptions } from './request-size.js';

/**
 * How a provider counts a request against its quotas, beside the headers it states them in: what a
 * request is charged as it is sent (from the body the task is about to send), what is given back or
 * charged more when it ends, and how the quota refills, so which `strategy` a throttler following it uses.
 */
export interface ProviderAccounting<Charge, Settled> {
  /** `'openai'`, `'anthropic'`, or `'actual-usage'` (a gateway that counts what each answer used). */
  readonly provider: 'openai' | 'anthropic' | 'actual-usage';
  /**
   * How the provider's quota comes back: `'sliding-window'` (a request counts for a window after it is
   * counted) or `'token-bucket'` (capacity refilled continuously, up to the limit).
   */
  readonly refill: 'sliding-window' | 'token-bucket';
  /**
   * The strategy for a throttler following it: `'sliding-window'` for all three, since no window of sends
   * holding at most the limit can be refused by either kind of quota (docs/llm-clients.md says why, and
   * what `'token-bucket'` costs against a token bucket: a burst after idle may take one request past it).
   */
  readonly strategy: 'sliding-window';
  /** The cost to schedule a request with, computed from the body it sends. */
  readonly charge: (body: unknown, options?: ChargeOptions) => Charge;
  /** The actual cost to `settle` it to, from the answer's body; undefined where the provider gives nothing back. */
  readonly settle: ((answer: unknown) => Settled) | undefined;
}
