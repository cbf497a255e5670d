import type { ChargeOptions } from './request-size.js';

/**
 * How a provider counts a request against its quotas, beside the headers it states them in: what a
 * request is charged as it is sent (from the body the task is about to send), what is given back or
 * charged more when it ends, and how the quota refills, so which `strategy` a throttler following it uses.
 */
export interface ProviderAccounting<Charge, Settled> {
  /** `'openai'`, `'anthropic'`, or `'actual-usage'` (a gateway that counts what each answer used). */
  readonly provider: 'openai' | 'anthropic' | 'actual-usage';
  /** The strategy whose windows hold what the provider's do (see each provider's page). */
  readonly strategy: 'sliding-window' | 'token-bucket';
  /** The cost to schedule a request with, computed from the body it sends. */
  readonly charge: (body: unknown, options?: ChargeOptions) => Charge;
  /** The actual cost to `settle` it to, from the answer's body; undefined where the provider gives nothing back. */
  readonly settle: ((answer: unknown) => Settled) | undefined;
}
