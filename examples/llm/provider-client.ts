/**
 * A client of the mock provider for each provider's accounting, as docs/llm-clients.md recommends it: the
 * throttler's rates are the provider's stated limits, each request is charged from its body by the
 * provider's helper (`openaiCharge`, `anthropicCharge`, `actualUsageCharge`) and settled only where the
 * provider gives back (`anthropicSettle`, `actualUsageSettle`). Runs a workload of requests with random
 * prompts and `max_tokens` through a `call` (the HTTP server's `callModel`, or the virtual-time network's
 * `call`), sending a refused one again, and reports the 429s. Used by the tests and by the bench (W7).
 */
import { createThrottler } from '../../src/index.js';
import type { Rate } from '../../src/rate/index.js';
import {
  actualUsageAccounting,
  actualUsageCharge,
  actualUsageSettle,
  anthropicAccounting,
  anthropicCharge,
  anthropicSettle,
  openaiAccounting,
  openaiCharge,
  serverLimits,
} from '../../src/server-limits/index.js';
import type { ModelCall } from './mock-model-server.js';
import {
  type ModelLimitsOptions,
  type ModelRequest,
  type ProviderMode,
  promptOfTokens,
  type Quota,
} from './model-limits.js';
import { seeded } from './network.js';

/**
 * A provider's stated limits per window, by mode: what the tests run against (a minute scaled down 10x),
 * with about 50 to 70 requests' tokens per window in the binding quota (`binding`), so that one request's
 * charge is a small part of it, as with a per-minute quota.
 */
export const PROVIDER_LIMITS: Record<ProviderMode, ModelLimitsOptions & { binding: Quota }> = {
  openai: { mode: 'openai', requests: 200, tokens: 20_000, windowMs: 6_000, binding: 'tokens' },
  anthropic: {
    mode: 'anthropic',
    requests: 200,
    inputTokens: 40_000,
    outputTokens: 12_000,
    windowMs: 6_000,
    binding: 'output-tokens',
  },
  'actual-usage': { mode: 'actual-usage', requests: 200, tokens: 20_000, windowMs: 6_000, binding: 'tokens' },
};

export interface ClientOptions {
  /** The provider's limits (its mode says how the client charges and settles). */
  limits: ModelLimitsOptions;
  /** Sends one request. */
  call: (request: ModelRequest) => Promise<ModelCall>;
  /** Requests in the workload. */
  jobs: number;
  /** The workload's seed: prompt sizes and `max_tokens`. */
  seed: number;
  /**
   * Ms added to each rate's interval by hand (the uplink's spread), for comparison: the throttler's
   * `transit`, measured by default with `serverLimits`, does it for you. Default 0.
   */
  widenMs?: number;
  /** Extra throttler options (`transit`: measured by default; `strategy`...). */
  throttler?: Record<string, unknown>;
  /** Settle every 200 to `usage.total_tokens`, whatever the provider: what issue 39 measures against OpenAI. */
  settleTotal?: boolean;
  /** The workload's sizes (default prompts of 50 to 500 tokens, `max_tokens` 100 to 400). */
  shape?: WorkloadShape;
  /** The workload in this many waves, each sent `idleMs` after the last was answered (default 1): bursts after idle. */
  waves?: number;
  idleMs?: number;
}

export interface ClientRun {
  /** 429s the client was answered. */
  refused: number;
  /** Requests answered 200. */
  answered: number;
  /** When the first and the last request was answered 200, on the clock of `performance.now`. */
  first: number;
  last: number;
}

/** A workload's sizes, each drawn uniformly from [min, max]: prompts in tokens (at 4 characters a token), and max_tokens. */
export interface WorkloadShape {
  promptTokens: readonly [number, number];
  maxTokens: readonly [number, number];
}

export const DEFAULT_SHAPE: WorkloadShape = { promptTokens: [50, 500], maxTokens: [100, 400] };

/** The workload's requests, drawn from `seed`. */
export function workload(jobs: number, seed: number, shape: WorkloadShape = DEFAULT_SHAPE): ModelRequest[] {
  const random = seeded(seed);
  const draw = ([min, max]: readonly [number, number]) => min + Math.floor(random() * (max - min + 1));
  return Array.from({ length: jobs }, () => {
    const prompt = draw(shape.promptTokens);
    const most = draw(shape.maxTokens);
    return { messages: [{ role: 'user', content: promptOfTokens(prompt) }], max_tokens: most };
  });
}

/** The client's rates: the provider's limits, each over its window plus `widenMs`. */
export function clientRates(limits: ModelLimitsOptions, widenMs = 0): Record<string, Rate> {
  const interval = (limits.windowMs ?? 60_000) + widenMs;
  const rate = (limit: number | undefined): Rate => ({ limit: limit as number, interval });
  if (limits.mode === 'anthropic') {
    return {
      requests: rate(limits.requests),
      'input-tokens': rate(limits.inputTokens),
      'output-tokens': rate(limits.outputTokens),
    };
  }
  return { requests: rate(limits.requests), tokens: rate(limits.tokens) };
}

/** The provider's accounting, by mode. */
export function accountingOf(mode: ProviderMode | undefined) {
  return mode === 'openai' ? openaiAccounting : mode === 'anthropic' ? anthropicAccounting : actualUsageAccounting;
}

type Plan = { cost: Record<string, number>; settle?: (call: ModelCall) => Record<string, number> };

/** The cost and settle of one request, by the provider's accounting. */
export function accountingFor(mode: ProviderMode | undefined, request: ModelRequest, settleTotal = false): Plan {
  // A refused request keeps its charge: conservative, whatever the provider counted for it.
  const on200 =
    (settle: (body: unknown) => Record<string, number>) =>
    (call: ModelCall): Record<string, number> =>
      call.status === 200 ? settle(call.body) : {};
  if (mode === 'openai') {
    const cost = openaiCharge(request);
    return settleTotal ? { cost, settle: on200((body) => ({ tokens: (body as any).usage.total_tokens })) } : { cost };
  }
  if (mode === 'anthropic') return { cost: anthropicCharge(request), settle: on200(anthropicSettle) };
  return { cost: actualUsageCharge(request), settle: on200(actualUsageSettle) };
}

/** Runs the workload through one throttler; every job sends its request again after a 429 until it is answered. */
export async function runClient(options: ClientOptions): Promise<ClientRun> {
  const { limits } = options;
  const windowMs = limits.windowMs ?? 60_000;
  const llm = createThrottler({
    rate: clientRates(limits, options.widenMs),
    strategy: accountingOf(limits.mode).strategy,
    // A 429's retry-after pauses the throttler; the quotas' own fields are followed by the rates above.
    serverLimits: serverLimits((call: ModelCall) => call, { providerWindow: windowMs, followPolicy: false }),
    ...options.throttler,
  } as Parameters<typeof createThrottler>[0]);
  const run: ClientRun = { refused: 0, answered: 0, first: Number.POSITIVE_INFINITY, last: 0 };
  const job = async (request: ModelRequest): Promise<void> => {
    const { cost, settle } = accountingFor(limits.mode, request, options.settleTotal);
    for (;;) {
      const call = await llm.schedule(() => options.call(request), settle === undefined ? { cost } : { cost, settle });
      if (call.status === 200) {
        run.answered += 1;
        run.first = Math.min(run.first, performance.now());
        run.last = performance.now();
        return;
      }
      if (call.status !== 429) throw new Error(`answered ${call.status}: ${JSON.stringify(call.body)}`);
      run.refused += 1;
    }
  };
  const requests = workload(options.jobs, options.seed, options.shape);
  const waves = options.waves ?? 1;
  for (let wave = 0; wave < waves; wave += 1) {
    if (wave > 0) await new Promise((resolve) => setTimeout(resolve, options.idleMs ?? 0));
    const from = Math.floor((wave * requests.length) / waves);
    await Promise.all(requests.slice(from, Math.floor(((wave + 1) * requests.length) / waves)).map(job));
  }
  await llm.stop();
  return run;
}
