/**
 * The limits of a mock language-model provider, with no HTTP and no clock: one module of provider logic,
 * used by the HTTP server (mock-model-server.ts) and by the virtual-time network (simulated-network.ts).
 * Each `mode` counts as that provider says it does, when the request arrives:
 *
 * - `'openai'` (https://platform.openai.com/docs/guides/rate-limits): requests and tokens, each a strict
 *   sliding window; a request is charged "the maximum of max_tokens and the estimated number of tokens
 *   based on the character count of your request" when it arrives, and nothing is given back. OpenAI's
 *   headers: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, the reset a Go duration (`1s`, `20ms`).
 * - `'anthropic'` (https://platform.claude.com/docs/en/api/rate-limits): token buckets for requests, input
 *   tokens and output tokens, each holding its limit and refilled continuously at limit per window; a
 *   request takes 1 request, its input's size estimate and `max_tokens` output tokens when it arrives, and
 *   the output it did not write is given back when the model is done (`generationMs` later). Anthropic's
 *   headers: `anthropic-ratelimit-{requests,input-tokens,output-tokens}-{limit,remaining,reset}`, the reset
 *   an RFC 3339 date-time (when the bucket is full again).
 * - `'actual-usage'` (a gateway counting what each answer used): requests and tokens in sliding windows;
 *   a request counts the tokens it used (its input plus what the model wrote, drawn as it arrives), with
 *   OpenAI's headers.
 *
 * A body carries text (`messages[].content`, `system`, `prompt`) and `max_tokens`, as the real APIs' do; its
 * input tokens are its text's characters over `charsPerToken` (default 4), rounded up. The model writes a
 * random share of `max_tokens` (from `minCompletionShare` to all of it). A request fits only when all of its
 * charge fits every quota; a refused one counts in none; a 429 carries `retry-after` in whole seconds,
 * rounded up: when it would fit.
 */

export type ProviderMode = 'openai' | 'anthropic' | 'actual-usage';

/** A quota's name, as the providers' headers and the throttler's dimensions name it. */
export type Quota = 'requests' | 'tokens' | 'input-tokens' | 'output-tokens';

export interface ModelLimitsOptions {
  /** Whose accounting (default `'actual-usage'`). */
  mode?: ProviderMode;
  /** Requests per window. */
  requests: number;
  /** Tokens per window (`'openai'`, `'actual-usage'`). */
  tokens?: number;
  /** Input and output tokens per window (`'anthropic'`). */
  inputTokens?: number;
  outputTokens?: number;
  /** The window in ms (a provider's minute, scaled down so that a run takes seconds). Default 60,000. */
  windowMs?: number;
  /** The least share of `max_tokens` the model writes. Default 0.3. */
  minCompletionShare?: number;
  /** From 0 (inclusive) to 1 (exclusive). Default `Math.random`; a seeded one makes runs repeatable. */
  random?: () => number;
  /** Characters per input token of the provider's own count. Default 4. */
  charsPerToken?: number;
  /** Ms the model takes to write an answer: Anthropic's output refund comes at its end. Default 0. */
  generationMs?: number;
  /** The wall-clock ms of time 0, for Anthropic's date-time resets. Default `Date.now() - performance.now()`. */
  epochMs?: number;
}

/** A request body as the real APIs take it: text and the most the model may write. */
export interface ModelRequest {
  model?: string;
  system?: string;
  messages?: Array<{ role: string; content: string }>;
  prompt?: string;
  max_tokens: number;
}

/** OpenAI's usage (`'openai'`, `'actual-usage'`). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Anthropic's usage (`'anthropic'`). */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface ModelAnswer {
  /** 200: accepted; 429: past a limit; 400: a request that could never fit, or malformed. */
  status: 200 | 400 | 429;
  headers: Record<string, string>;
  usage?: Usage | AnthropicUsage;
  /** On a 429, which quota refused it. */
  refusedBy?: Quota;
  /** On a 400, why. */
  error?: string;
}

/** An accepted request: its arrival, the tokens it used, and what each quota counted for it (after any refund). */
export interface AcceptedRequest {
  at: number;
  tokens: number;
  counted: Partial<Record<Quota, number>>;
}

/** One quota: a sliding window of what it counted, or a token bucket. */
interface Meter {
  readonly limit: number;
  /** What is left now. */
  remaining(now: number): number;
  take(now: number, amount: number): void;
  give(now: number, amount: number): void;
  /** Ms from `now` until `amount` fits. */
  waitFor(now: number, amount: number): number;
  /** Ms from `now` until the quota is whole again. */
  untilWhole(now: number): number;
}

/** A strict sliding window over (time, amount), oldest first from `head`. */
class SlidingMeter implements Meter {
  private readonly times: number[] = [];
  private readonly amounts: number[] = [];
  private head = 0;
  private total = 0;

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
  ) {}

  private forget(now: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) <= now - this.windowMs) {
      this.total -= this.amounts[this.head] as number;
      this.head += 1;
    }
  }

  remaining(now: number): number {
    this.forget(now);
    return this.limit - this.total;
  }

  take(now: number, amount: number): void {
    this.forget(now);
    this.times.push(now);
    this.amounts.push(amount);
    this.total += amount;
  }

  give(): void {
    throw new Error('a sliding window gives nothing back');
  }

  waitFor(now: number, amount: number): number {
    this.forget(now);
    let total = this.total;
    for (let index = this.head; index < this.times.length && total + amount > this.limit; index += 1) {
      total -= this.amounts[index] as number;
      if (total + amount <= this.limit) return (this.times[index] as number) + this.windowMs - now;
    }
    return 0;
  }

  untilWhole(now: number): number {
    this.forget(now);
    return this.times.length > this.head ? (this.times.at(-1) as number) + this.windowMs - now : 0;
  }
}

/** A token bucket holding `limit`, refilled continuously at `limit` per window, full at the start. */
class BucketMeter implements Meter {
  private level: number;
  private last = Number.NEGATIVE_INFINITY;
  private readonly perMs: number;

  constructor(
    readonly limit: number,
    windowMs: number,
  ) {
    this.level = limit;
    this.perMs = limit / windowMs;
  }

  private refill(now: number): void {
    if (now > this.last) {
      // To a millionth of a token: sums of refills and refunds must not fall short of a whole one by a rounding.
      this.level = Math.min(this.limit, Math.round((this.level + (now - this.last) * this.perMs) * 1e6) / 1e6);
      this.last = now;
    }
  }

  remaining(now: number): number {
    this.refill(now);
    return this.level;
  }

  take(now: number, amount: number): void {
    this.refill(now);
    this.level -= amount;
  }

  give(now: number, amount: number): void {
    this.refill(now);
    this.level = Math.min(this.limit, this.level + amount);
  }

  waitFor(now: number, amount: number): number {
    this.refill(now);
    return amount <= this.level ? 0 : (amount - this.level) / this.perMs;
  }

  untilWhole(now: number): number {
    this.refill(now);
    return (this.limit - this.level) / this.perMs;
  }
}

/** A refund due when the model is done writing. */
interface Refund {
  at: number;
  quota: Quota;
  amount: number;
  request: AcceptedRequest;
}

export class ModelLimits {
  readonly mode: ProviderMode;
  readonly windowMs: number;
  readonly accepted: AcceptedRequest[] = [];
  /** 429s by the quota that refused them. */
  readonly refused: Partial<Record<Quota, number>> = {};
  /** The quotas, in the order they are checked. */
  readonly quotas: ReadonlyMap<Quota, Meter>;
  private readonly refunds: Refund[] = [];
  private readonly random: () => number;
  private readonly minShare: number;
  private readonly charsPerToken: number;
  private readonly generationMs: number;
  private readonly epochMs: number;

  constructor(options: ModelLimitsOptions) {
    this.mode = options.mode ?? 'actual-usage';
    this.windowMs = options.windowMs ?? 60_000;
    this.random = options.random ?? Math.random;
    this.minShare = options.minCompletionShare ?? 0.3;
    this.charsPerToken = options.charsPerToken ?? 4;
    this.generationMs = options.generationMs ?? 0;
    this.epochMs = options.epochMs ?? Date.now() - performance.now();
    this.quotas = quotasFor(this.mode, options, this.windowMs);
    for (const quota of this.quotas.keys()) this.refused[quota] = 0;
  }

  /** The answer to `request` arriving at `now` (ms, never running back). */
  answer(now: number, request: ModelRequest): ModelAnswer {
    this.applyRefunds(now);
    const read = readRequest(request, this.charsPerToken);
    if (typeof read === 'string') return { status: 400, headers: this.headers(now), error: read };
    const completion = Math.round(read.most * (this.minShare + (1 - this.minShare) * this.random()));
    const charge = this.charge(read.input, read.most, completion);
    for (const [quota, amount] of charge) {
      const meter = this.quotas.get(quota) as Meter;
      if (amount > meter.limit) {
        const error = `the request's ${quota} (${amount}) is over the limit (${meter.limit}): it could never fit`;
        return { status: 400, headers: this.headers(now), error };
      }
    }
    let refusedBy: Quota | undefined;
    let wait = 0;
    for (const [quota, amount] of charge) {
      const meter = this.quotas.get(quota) as Meter;
      if (meter.remaining(now) >= amount) continue;
      refusedBy ??= quota;
      wait = Math.max(wait, meter.waitFor(now, amount));
    }
    if (refusedBy !== undefined) {
      this.refused[refusedBy] = (this.refused[refusedBy] ?? 0) + 1;
      const retryAfter = String(Math.max(1, Math.ceil(wait / 1000)));
      return { status: 429, headers: { ...this.headers(now), 'retry-after': retryAfter }, refusedBy };
    }
    const accepted: AcceptedRequest = { at: now, tokens: read.input + completion, counted: {} };
    for (const [quota, amount] of charge) {
      (this.quotas.get(quota) as Meter).take(now, amount);
      accepted.counted[quota] = amount;
    }
    this.accepted.push(accepted);
    if (this.mode === 'anthropic' && completion < read.most) {
      const refund = { at: now + this.generationMs, quota: 'output-tokens' as const, amount: read.most - completion };
      this.refunds.push({ ...refund, request: accepted });
      if (this.generationMs === 0) this.applyRefunds(now);
    }
    const usage =
      this.mode === 'anthropic'
        ? { input_tokens: read.input, output_tokens: completion }
        : { prompt_tokens: read.input, completion_tokens: completion, total_tokens: read.input + completion };
    return { status: 200, headers: this.headers(now), usage };
  }

  /** What each quota counts for a request of `input` tokens, `most` at most written, `completion` written. */
  private charge(input: number, most: number, completion: number): Array<[Quota, number]> {
    if (this.mode === 'openai') {
      return [
        ['requests', 1],
        ['tokens', Math.max(most, input)],
      ];
    }
    if (this.mode === 'anthropic') {
      return [
        ['requests', 1],
        ['input-tokens', input],
        ['output-tokens', most],
      ];
    }
    return [
      ['requests', 1],
      ['tokens', input + completion],
    ];
  }

  /** Gives back, in time order, the output the model did not write, for every answer done by `now`. */
  private applyRefunds(now: number): void {
    while (this.refunds.length > 0 && (this.refunds[0] as Refund).at <= now) {
      const refund = this.refunds.shift() as Refund;
      (this.quotas.get(refund.quota) as Meter).give(refund.at, refund.amount);
      refund.request.counted[refund.quota] = (refund.request.counted[refund.quota] as number) - refund.amount;
    }
  }

  private headers(now: number): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [quota, meter] of this.quotas) {
      const remaining = String(Math.max(0, Math.floor(meter.remaining(now))));
      if (this.mode === 'anthropic') {
        headers[`anthropic-ratelimit-${quota}-limit`] = String(meter.limit);
        headers[`anthropic-ratelimit-${quota}-remaining`] = remaining;
        // RFC 3339, rounded up to the second as Anthropic writes it: when the bucket is full again.
        const whole = Math.ceil((this.epochMs + now + meter.untilWhole(now)) / 1000) * 1000;
        headers[`anthropic-ratelimit-${quota}-reset`] = new Date(whole).toISOString().replace('.000Z', 'Z');
      } else {
        headers[`x-ratelimit-limit-${quota}`] = String(meter.limit);
        headers[`x-ratelimit-remaining-${quota}`] = remaining;
        headers[`x-ratelimit-reset-${quota}`] = goDuration(meter.untilWhole(now));
      }
    }
    return headers;
  }
}

function quotasFor(mode: ProviderMode, options: ModelLimitsOptions, windowMs: number): Map<Quota, Meter> {
  const need = (name: 'requests' | 'tokens' | 'inputTokens' | 'outputTokens'): number => {
    const value = options[name];
    if (!isCount(value) || value === 0)
      throw new TypeError(`ModelLimits: ${name} must be a whole number above 0 in mode ${mode}`);
    return value;
  };
  if (mode === 'anthropic') {
    return new Map<Quota, Meter>([
      ['requests', new BucketMeter(need('requests'), windowMs)],
      ['input-tokens', new BucketMeter(need('inputTokens'), windowMs)],
      ['output-tokens', new BucketMeter(need('outputTokens'), windowMs)],
    ]);
  }
  return new Map<Quota, Meter>([
    ['requests', new SlidingMeter(need('requests'), windowMs)],
    ['tokens', new SlidingMeter(need('tokens'), windowMs)],
  ]);
}

/** The body's input tokens (its text's characters over `charsPerToken`, rounded up) and `max_tokens`, or why not. */
function readRequest(request: unknown, charsPerToken: number): { input: number; most: number } | string {
  if (typeof request !== 'object' || request === null) return 'the body must be a JSON object';
  const { system, messages, prompt, max_tokens: most } = request as Record<string, unknown>;
  if (!isCount(most) || most === 0) return 'max_tokens must be a whole number above 0';
  let characters = 0;
  if (typeof system === 'string') characters += system.length;
  if (typeof prompt === 'string') characters += prompt.length;
  if (Array.isArray(messages)) {
    for (const message of messages) {
      const content = (message as { content?: unknown } | null)?.content;
      if (typeof content !== 'string') return 'each message must have a string content';
      characters += content.length;
    }
  } else if (prompt === undefined) {
    return 'messages (or prompt) is required';
  }
  return { input: Math.ceil(characters / charsPerToken), most };
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** A prompt of about `tokens` input tokens at 4 characters a token, for driving the mock by size. */
export function promptOfTokens(tokens: number, charsPerToken = 4): string {
  return 'x'.repeat(Math.max(0, Math.round(tokens * charsPerToken)));
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
  accepted: ReadonlyArray<{ at: number; tokens: number }>,
  windowMs: number,
): { most: number; mean: number } {
  let most = 0;
  let end = 0;
  let inWindow = 0;
  for (let start = 0; start < accepted.length; start += 1) {
    const from = (accepted[start] as { at: number; tokens: number }).at;
    while (end < accepted.length && (accepted[end] as { at: number; tokens: number }).at < from + windowMs) {
      inWindow += (accepted[end] as { at: number; tokens: number }).tokens;
      end += 1;
    }
    most = Math.max(most, inWindow);
    inWindow -= (accepted[start] as { at: number; tokens: number }).tokens;
  }
  const total = accepted.reduce((sum, request) => sum + request.tokens, 0);
  // From the first accepted request to one window after the last: k full windows in a row read as k.
  const span =
    accepted.length === 0 ? windowMs : (accepted.at(-1)?.at as number) - (accepted[0]?.at as number) + windowMs;
  return { most, mean: (total * windowMs) / span };
}

/**
 * The share of what the provider lets through in `quota` that the requests arriving in [from, to) were
 * counted (after refunds): counted / (limit x (to - from) / windowMs). A bucket also lets its capacity
 * through at once, so a steady span (not from the start) is the fair measure.
 */
export function usedShare(limits: ModelLimits, quota: Quota, from: number, to: number): number {
  const meter = limits.quotas.get(quota);
  if (meter === undefined) throw new TypeError(`usedShare: no quota ${quota} in mode ${limits.mode}`);
  let counted = 0;
  for (const request of limits.accepted) {
    if (request.at >= from && request.at < to) counted += request.counted[quota] ?? 0;
  }
  return counted / ((meter.limit * (to - from)) / limits.windowMs);
}
