/**
 * The limits of a mock language-model server, with no HTTP and no clock: a requests-per-window and a
 * tokens-per-window limit, each a strict sliding window over what the server accepted (a refused request
 * counts in neither), which the server never states except in its answers' headers, as OpenAI states its
 * own (https://platform.openai.com/docs/guides/rate-limits, "Rate limits in headers"):
 *
 *   x-ratelimit-limit-requests / -tokens       the limit per window
 *   x-ratelimit-remaining-requests / -tokens   what is left in the window ending now, after this request
 *   x-ratelimit-reset-requests / -tokens       until the window is empty again ("resets to its initial
 *                                              state"), a Go duration as OpenAI writes it: 6m0s, 1s, 20ms
 *
 * and a 429 past either limit, with `retry-after` in whole seconds (rounded up): when this request would fit.
 *
 * A request states its prompt's size and the most it lets the model write (`max_tokens`), so the caller's
 * estimate is `prompt_tokens + max_tokens`. The model writes a random share of `max_tokens` (from
 * `minCompletionShare` to all of it), drawn as the request arrives, and the request is accepted only when
 * all of its tokens fit the window: so the actual total is never above the estimate, and the tokens
 * the server accepted never exceed its limit in any window.
 */

export interface ModelLimitsOptions {
  /** Requests per window. */
  requests: number;
  /** Tokens (prompt and completion) per window. */
  tokens: number;
  /** The window in ms (a provider's minute, scaled down so that a run takes seconds). Default 60,000. */
  windowMs?: number;
  /** The least share of `max_tokens` the model writes. Default 0.3. */
  minCompletionShare?: number;
  /** From 0 (inclusive) to 1 (exclusive). Default `Math.random`; a seeded one makes runs repeatable. */
  random?: () => number;
}

export interface ModelRequest {
  prompt_tokens: number;
  max_tokens: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ModelAnswer {
  /** 200: accepted; 429: past a limit; 400: a request that could never fit, or malformed. */
  status: 200 | 400 | 429;
  headers: Record<string, string>;
  usage?: Usage;
  /** On a 429, which limit refused it. */
  refusedBy?: 'requests' | 'tokens';
  /** On a 400, why. */
  error?: string;
}

/** What the server accepted, for measuring a run: every accepted request's arrival and tokens. */
export interface AcceptedRequest {
  at: number;
  tokens: number;
}

/** A sliding log of (time, amount), oldest first from `head`. */
class SlidingLog {
  private readonly times: number[] = [];
  private readonly amounts: number[] = [];
  private head = 0;
  total = 0;

  constructor(private readonly windowMs: number) {}

  forget(now: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) <= now - this.windowMs) {
      this.total -= this.amounts[this.head] as number;
      this.head += 1;
    }
  }

  add(now: number, amount: number): void {
    this.times.push(now);
    this.amounts.push(amount);
    this.total += amount;
  }

  /** Ms from `now` until `amount` more fits under `limit`. */
  waitFor(now: number, amount: number, limit: number): number {
    let total = this.total;
    for (let index = this.head; index < this.times.length && total + amount > limit; index += 1) {
      total -= this.amounts[index] as number;
      if (total + amount <= limit) return (this.times[index] as number) + this.windowMs - now;
    }
    return 0;
  }

  /** Ms from `now` until the window is empty. */
  untilEmpty(now: number): number {
    return this.times.length > this.head ? (this.times.at(-1) as number) + this.windowMs - now : 0;
  }
}

export class ModelLimits {
  readonly windowMs: number;
  readonly accepted: AcceptedRequest[] = [];
  refused = { requests: 0, tokens: 0 };
  private readonly requestLog: SlidingLog;
  private readonly tokenLog: SlidingLog;
  private readonly random: () => number;
  private readonly minShare: number;

  constructor(private readonly options: ModelLimitsOptions) {
    this.windowMs = options.windowMs ?? 60_000;
    this.random = options.random ?? Math.random;
    this.minShare = options.minCompletionShare ?? 0.3;
    this.requestLog = new SlidingLog(this.windowMs);
    this.tokenLog = new SlidingLog(this.windowMs);
  }

  /** The answer to `request` arriving at `now` (ms, never running back). */
  answer(now: number, request: ModelRequest): ModelAnswer {
    this.requestLog.forget(now);
    this.tokenLog.forget(now);
    const { prompt_tokens: prompt, max_tokens: most } = request;
    if (!isCount(prompt) || !isCount(most) || prompt + most > this.options.tokens) {
      return {
        status: 400,
        headers: this.headers(now),
        error: `prompt_tokens and max_tokens must be whole numbers whose sum is at most ${this.options.tokens}`,
      };
    }
    const completion = Math.round(most * (this.minShare + (1 - this.minShare) * this.random()));
    const total = prompt + completion;
    let refusedBy: 'requests' | 'tokens' | undefined;
    let wait = 0;
    if (this.requestLog.total + 1 > this.options.requests) {
      refusedBy = 'requests';
      wait = this.requestLog.waitFor(now, 1, this.options.requests);
    }
    if (this.tokenLog.total + total > this.options.tokens) {
      refusedBy ??= 'tokens';
      wait = Math.max(wait, this.tokenLog.waitFor(now, total, this.options.tokens));
    }
    if (refusedBy !== undefined) {
      this.refused[refusedBy] += 1;
      return {
        status: 429,
        headers: { ...this.headers(now), 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) },
        refusedBy,
      };
    }
    this.requestLog.add(now, 1);
    this.tokenLog.add(now, total);
    this.accepted.push({ at: now, tokens: total });
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
    return { status: 200, headers: this.headers(now), usage };
  }

  private headers(now: number): Record<string, string> {
    const { requests, tokens } = this.options;
    return {
      'x-ratelimit-limit-requests': String(requests),
      'x-ratelimit-limit-tokens': String(tokens),
      'x-ratelimit-remaining-requests': String(requests - this.requestLog.total),
      'x-ratelimit-remaining-tokens': String(tokens - this.tokenLog.total),
      'x-ratelimit-reset-requests': goDuration(this.requestLog.untilEmpty(now)),
      'x-ratelimit-reset-tokens': goDuration(this.tokenLog.untilEmpty(now)),
    };
  }
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * Ms as Go's `time.Duration.String()` writes them, to whole ms: `0s`, `20ms`, `1s`, `1.5s`, `6m0s`,
 * `1h0m0s` (https://pkg.go.dev/time#Duration.String).
 */
export function goDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole === 0) return '0s';
  if (whole < 1_000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = (whole % 60_000) / 1_000;
  const secondsText = `${seconds.toFixed(3).replace(/\.?0+$/, '')}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}

/**
 * The most tokens the server accepted in any window of its length (a brute force over the windows
 * that start at an accepted request), and the mean per window from the first accepted to a window after the last.
 */
export function tokensPerWindow(
  accepted: readonly AcceptedRequest[],
  windowMs: number,
): { most: number; mean: number } {
  let most = 0;
  let end = 0;
  let inWindow = 0;
  for (let start = 0; start < accepted.length; start += 1) {
    const from = (accepted[start] as AcceptedRequest).at;
    while (end < accepted.length && (accepted[end] as AcceptedRequest).at < from + windowMs) {
      inWindow += (accepted[end] as AcceptedRequest).tokens;
      end += 1;
    }
    most = Math.max(most, inWindow);
    inWindow -= (accepted[start] as AcceptedRequest).tokens;
  }
  const total = accepted.reduce((sum, request) => sum + request.tokens, 0);
  // From the first accepted request to one window after the last: k full windows in a row read as k.
  const span =
    accepted.length === 0
      ? windowMs
      : (accepted.at(-1) as AcceptedRequest).at - (accepted[0] as AcceptedRequest).at + windowMs;
  return { most, mean: (total * windowMs) / span };
}
