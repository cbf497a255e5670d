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

/** What a response says about the server's limits, as throttler events. */
export interface ServerLimits {
  /** The response's status, when known. */
  readonly status: number | undefined;
  /** Wait this long before the next delivery; undefined when the server asks for no wait. */
  readonly pause: ServerPauseEvent | undefined;
  /** When the pause ends, on the reader's `now` clock (ms since the epoch by default). */
  readonly resumeAt: number | undefined;
  /** Which field the pause comes from: `retry-after`, `ratelimit`, `x-ratelimit-reset`..., or `status 429`. */
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
  /** The events to send, SET_RATE first: `[]` when the server asks for nothing. */
  readonly events: ReadonlyArray<ServerPauseEvent | ServerRateEvent>;
  /** Every value not used as written, and why. */
  readonly ignored: readonly IgnoredServerValue[];
}
