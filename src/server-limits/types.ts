import type { Rate } from '../rate/index.js';

/** A value from the server that was not used as written, and why: for logs and `invalidEvent`-like reports. */
export interface IgnoredServerValue {
  /** The header field, in lower case (`retry-after`, `ratelimit`), or `status`. */
  readonly field: string;
  /** The value, or the part of it that was passed over. */
  readonly value: string;
  /** Why, in a sentence: malformed, negative, in the past, capped at `maxPause`... */
  readonly reason: string;
}

/**
 * The PAUSE to send: a duration, never an `until`, because the throttler's clock (`performance.now()`
 * by default) is not the wall clock that HTTP dates and epoch resets are written in.
 */
export interface ServerPauseEvent {
  readonly type: 'PAUSE';
  /** Milliseconds, more than 0 and at most `maxPause`. */
  readonly duration: number;
}

/** The SET_RATE to send: the rates the server states, all to hold at once, with the `ceiling`'s. */
export interface ServerRateEvent {
  readonly type: 'SET_RATE';
  readonly rate: readonly Rate[];
  readonly channel?: string | undefined;
}

/**
 * What a throttler's cost counts, as the language-model providers name their quotas: `requests` (a plain
 * cost of 1 a call), `tokens`, and Anthropic's `input-tokens` and `output-tokens`. The same names as the
 * dimensions of a multi-dimension `rate` (`rate: { requests, tokens }`), so a listener's `dimension` names one.
 */
export type LimitDimension = 'requests' | 'tokens' | 'input-tokens' | 'output-tokens';

/** One quota a provider states (OpenAI's `x-ratelimit-*-requests|tokens`, Anthropic's `anthropic-ratelimit-*`). */
export interface DimensionLimit {
  /** The quota's dimension, from the field's name (`x-ratelimit-limit-tokens`: `'tokens'`). */
  readonly dimension: LimitDimension;
  /** Whose fields: `'openai'` (`x-ratelimit-limit-requests`...) or `'anthropic'` (`anthropic-ratelimit-requests-limit`...). */
  readonly provider: 'openai' | 'anthropic';
  /** The quota per window, as stated; undefined when absent, malformed or 0. */
  readonly limit: number | undefined;
  /** What is left of it now; undefined when absent or malformed. */
  readonly remaining: number | undefined;
  /** Milliseconds from the response until the quota is full again; undefined when absent, malformed, past or over `maxWindow`. */
  readonly resetIn: number | undefined;
  /** `limit` per `providerWindow` (1 minute): the rate a SET_RATE for this dimension carries, before any ceiling. */
  readonly rate: Rate | undefined;
}

/** What a response says about the server's limits, as throttler events. */
export interface ServerLimits {
  /** The response's status, when known. */
  readonly status: number | undefined;
  /** Wait this long before the next delivery; undefined when the server asks for no wait. */
  readonly pause: ServerPauseEvent | undefined;
  /** When the pause ends, on the reader's `now` clock (ms since the epoch by default). */
  readonly resumeAt: number | undefined;
  /** Which field the pause comes from: `retry-after`, `ratelimit`, `x-ratelimit-reset`, `x-ratelimit-reset-tokens`..., or `status 429`. */
  readonly pauseFrom: string | undefined;
  /**
   * The server's stated policy as a new rate; undefined when it states none usable. With `ceiling` rates
   * they are in it; with the default ceiling (`'configured'`) they are not yet: `applyServerLimits` adds
   * the throttler's own rates as it sends it (see `keepsConfiguredRates`).
   */
  readonly setRate: ServerRateEvent | undefined;
  /**
   * True with the default `ceiling: 'configured'`: `applyServerLimits` puts the rates the throttler holds
   * for that scope (not counting the ones it set itself) beside the server's, so that the server can
   * lower them but never raise them.
   */
  readonly keepsConfiguredRates: boolean;
  /**
   * The dimension `setRate` counts (the `dimension` option; `requests` when absent). To a throttler with
   * rates in dimensions `applyServerLimits` sends them as that dimension's rates, keeping the others'.
   */
  readonly dimension?: LimitDimension | undefined;
  /**
   * The providers' quotas by dimension (`{ requests, tokens }` for OpenAI; Anthropic adds `input-tokens` and
   * `output-tokens`); `{}` when the response has none of their fields. `setRate` follows the one named by
   * the `dimension` option (`requests` by default); every exhausted one with a reset ahead is a pause.
   */
  readonly dimensions: Readonly<Partial<Record<LimitDimension, DimensionLimit>>>;
  /** The events to send, SET_RATE first: `[]` when the server asks for nothing. */
  readonly events: ReadonlyArray<ServerPauseEvent | ServerRateEvent>;
  /** Every value not used as written, and why. */
  readonly ignored: readonly IgnoredServerValue[];
}
