/**
 * W7, a language-model quota (issues 26, 36, 39): N requests to each mock provider of examples/llm/ in turn,
 * each counting as that provider says it does (model-limits.ts): `'openai'` charges a request
 * max(max_tokens, its size estimate) when it arrives and gives nothing back (sliding windows); `'anthropic'`
 * takes input and output tokens apart, output reserved at max_tokens and given back down to what the model
 * wrote (token buckets); `'actual-usage'` counts the tokens each answer used (sliding windows). Every request
 * crosses a real socket with a seeded 20-150 ms uplink (before the provider counts it) and 5-40 ms downlink,
 * and every contender is configured at the provider's stated limits.
 *
 * Ours is the client docs/llm-clients.md recommends per provider (examples/llm/provider-client.ts): each
 * request charged by the provider's helper from its body (`openaiCharge`, `anthropicCharge`,
 * `actualUsageCharge`), settled only where the provider gives back, `serverLimits` with its default
 * `transit` (measured). p-queue and Bottleneck cannot compute a charge per request (p-queue has no cost;
 * Bottleneck has a weight, which the extra `openai` run below fills with the charge): each charges a fixed
 * guess in the binding quota. A refused request is sent again after its retry-after, the way each library
 * offers. Measured at the server: 429s, the binding quota per window (the fullest, and the mean over the
 * steady part, both in the actual tokens the answers used and as the provider counts it), and the time
 * from the hand-over until the last request was answered 200, against the ideal at exactly the limit.
 *
 * Real timers and real HTTP on 127.0.0.1, one contender at a time, each against a fresh server in a process
 * of its own (w7-provider.ts): a provider's work is not billed to the client's round trips.
 */
import { loadavg } from 'node:os';
import Bottleneck from 'bottleneck';
import PQueue from 'p-queue';
import { callModel, type ModelCall } from '../examples/llm/mock-model-server.js';
import type {
  AcceptedRequest,
  ModelLimitsOptions,
  ModelRequest,
  ProviderMode,
  Quota,
} from '../examples/llm/model-limits.js';
import { runClient, type WorkloadShape, workload } from '../examples/llm/provider-client.js';
import { openaiCharge } from '../src/server-limits/index.js';
import { forkProvider, type ProviderProcess } from './w7-provider.js';

/** What p-queue and Bottleneck charge a request in the binding quota, against the requests' sizes. */
export type GuessKind = 'mean' | 'largest' | 'twice-mean';

/** A provider's stated limits per window, and the quota that binds for this workload. */
export type ProviderLimits = ModelLimitsOptions & { mode: ProviderMode; windowMs: number; binding: Quota };

export interface LlmQuotaOptions {
  /** The providers, each a run of every contender. */
  providers: readonly ProviderMode[];
  limits: Record<ProviderMode, ProviderLimits>;
  jobs: number;
  /** Prompts and max_tokens, each drawn uniformly; the model writes 30% to 100% of max_tokens. */
  shape: WorkloadShape;
  guesses: readonly GuessKind[];
  /** The sizes' seed, the same for every contender; the server's draws and the network's follow from it. */
  seed: number;
  /** Ms before the provider counts a request, and before the client has the answer. */
  uplinkMs: readonly [number, number];
  downlinkMs: readonly [number, number];
  /** Who runs (default QUOTA_CONTENDERS). */
  contenders?: readonly QuotaContender[];
}

/**
 * A minute scaled to 5 s (retry-after counts whole seconds: a shorter window would make every 429 cost a
 * large share of it), 600 requests: the binding quota holds about 125 requests a window, and the workload is
 * 4.7 to 4.9 windows of it, so that the ideal is 20 s against each provider. Requests never bind.
 */
export const LLM_QUOTA_DEFAULTS: LlmQuotaOptions = {
  providers: ['openai', 'anthropic', 'actual-usage'],
  limits: {
    // Charges of 328 on average (max of max_tokens and the prompt): 196,800 for 600 requests.
    openai: { mode: 'openai', requests: 500, tokens: 42_000, windowMs: 5_000, binding: 'tokens' },
    // Output written, 162.5 on average (reserved: max_tokens, 250): 97,500; input 165,000, not binding.
    anthropic: {
      mode: 'anthropic',
      requests: 500,
      inputTokens: 80_000,
      outputTokens: 20_000,
      windowMs: 5_000,
      binding: 'output-tokens',
    },
    // Input and output, 437.5 on average: 262,500.
    'actual-usage': { mode: 'actual-usage', requests: 500, tokens: 55_000, windowMs: 5_000, binding: 'tokens' },
  },
  jobs: 600,
  shape: { promptTokens: [50, 500], maxTokens: [100, 400] },
  guesses: ['mean', 'largest', 'twice-mean'],
  seed: 7,
  uplinkMs: [20, 150],
  downlinkMs: [5, 40],
};

/** W7 in seconds, for the test: 1 s windows, 40 requests, one guess (about 25 s for the 10 runs). */
export const LLM_QUOTA_QUICK: LlmQuotaOptions = {
  ...LLM_QUOTA_DEFAULTS,
  limits: {
    openai: { ...LLM_QUOTA_DEFAULTS.limits.openai, requests: 100, tokens: 6_000, windowMs: 1_000 },
    anthropic: {
      ...LLM_QUOTA_DEFAULTS.limits.anthropic,
      requests: 100,
      inputTokens: 12_000,
      outputTokens: 3_000,
      windowMs: 1_000,
    },
    'actual-usage': { ...LLM_QUOTA_DEFAULTS.limits['actual-usage'], requests: 100, tokens: 8_000, windowMs: 1_000 },
  },
  jobs: 40,
  guesses: ['mean'],
};

export interface LlmQuotaRun {
  provider: ProviderMode;
  name: string;
  /** The fixed guess in the binding quota, or undefined: a charge per request (ours, and Bottleneck's extra run). */
  guess: number | undefined;
  guessKind: GuessKind | undefined;
  configuration: string;
  answered: number;
  refused: number;
  /** The binding quota as the provider counted it (after refunds) in its fullest window, of its limit. */
  fullest: number;
  /** Per window over the steady part, of the binding limit: the tokens the answers used, and as the provider counted them. */
  steadyUsed: number;
  steadyCounted: number;
  finishMs: number;
  /** At exactly the limit: the counted quotas over their limits, as that provider lets them through. */
  idealMs: number;
  /** The largest round trip a request took (send to answer), in ms: what bounds the uplink's spread J. */
  largestTripMs: number;
  /** The 1-minute load average when the run started. */
  load: number;
  error?: string;
}

/** One run's options: a provider, and a guess (for the contenders that charge one). */
export interface GuessOptions {
  limits: ProviderLimits;
  jobs: number;
  shape: WorkloadShape;
  seed: number;
  guess: number;
}

/** What a contender does: every request sent through it, each sent again after a 429 as the library allows. */
export interface QuotaContender {
  name: string;
  /** Whether it charges the fixed guess (a run per guess), or a charge per request (one run per provider). */
  guessing: boolean;
  /** Undefined: every provider. */
  providers?: readonly ProviderMode[];
  configuration: (options: GuessOptions) => string;
  run: (options: GuessOptions, send: (request: ModelRequest) => Promise<ModelCall>) => Promise<void>;
}

const limitOf = (limits: ProviderLimits, quota: Quota): number =>
  (quota === 'requests'
    ? limits.requests
    : quota === 'tokens'
      ? limits.tokens
      : quota === 'input-tokens'
        ? limits.inputTokens
        : limits.outputTokens) as number;

/** The requests a fixed guess lets go per window: min(requests, floor(binding limit / guess)). */
const perWindow = (o: GuessOptions): number =>
  Math.min(o.limits.requests, Math.floor(limitOf(o.limits, o.limits.binding) / o.guess));

const retryAfterMs = (call: ModelCall): number => Number(call.headers.get('retry-after') ?? 1) * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The binding quota's name as the others' configurations say it. */
const bindingName = (o: GuessOptions): string => (o.limits.binding === 'tokens' ? 'tokens' : o.limits.binding);

const OURS_CHARGE: Record<ProviderMode, string> = {
  openai:
    'cost openaiCharge(body) ({ requests: 1, tokens: max(max_tokens, size estimate) }), no settle (OpenAI gives nothing back)',
  anthropic:
    "cost anthropicCharge(body) ({ requests: 1, 'input-tokens': size estimate, 'output-tokens': max_tokens }), settle: anthropicSettle(answer) on a 200 (output given back down to what was written)",
  'actual-usage':
    'cost actualUsageCharge(body) ({ requests: 1, tokens: size estimate + max_tokens }), settle: actualUsageSettle(answer) on a 200 (usage.total_tokens)',
};

/** Bottleneck's reservoir on the binding quota, each job weighing `weight(request)`; a 429 retried after its retry-after. */
async function runBottleneck(
  o: GuessOptions,
  send: (request: ModelRequest) => Promise<ModelCall>,
  weight: (request: ModelRequest) => number,
): Promise<void> {
  const limit = limitOf(o.limits, o.limits.binding);
  const limiter = new Bottleneck({
    reservoir: limit,
    reservoirRefreshAmount: limit,
    reservoirRefreshInterval: o.limits.windowMs,
    minTime: o.limits.windowMs / o.limits.requests,
  });
  limiter.on('failed', (error: { retryAfter?: number }) => error.retryAfter);
  const job = (request: ModelRequest) =>
    limiter.schedule({ weight: weight(request) }, async () => {
      const call = await send(request);
      if (call.status === 429) throw Object.assign(new Error('429'), { retryAfter: retryAfterMs(call) });
      return call;
    });
  await Promise.all(workload(o.jobs, o.seed, o.shape).map(job));
  await limiter.stop({ dropWaitingJobs: true });
  limiter.disconnect();
}

const bottleneckConfiguration = (o: GuessOptions, weight: string): string =>
  `new Bottleneck({ reservoir: ${limitOf(o.limits, o.limits.binding)}, reservoirRefreshAmount: ${limitOf(o.limits, o.limits.binding)}, reservoirRefreshInterval: ${o.limits.windowMs}, minTime: ${o.limits.windowMs / o.limits.requests} }) with schedule({ weight: ${weight} }): the ${bindingName(o)} quota as the reservoir, requests as minTime; a 429 throws, and the 'failed' handler retries the job after its retry-after`;

/** Ours as docs/llm-clients.md recommends it, with `pace` (true or a span) or without. */
export const ours = (pace: boolean | string): QuotaContender => ({
  name:
    pace === false
      ? 'xstate-throttler (createThrottler)'
      : `xstate-throttler (createThrottler, pace${pace === true ? '' : `: '${pace}'`})`,
  guessing: false,
  configuration: (o) =>
    `createThrottler({ rate: { ${o.limits.mode === 'anthropic' ? "requests, 'input-tokens', 'output-tokens'" : 'requests, tokens'} } at the stated limits per ${o.limits.windowMs} ms, strategy: 'sliding-window', serverLimits: serverLimits(call => call, { providerWindow: ${o.limits.windowMs}, followPolicy: false })${pace === false ? '' : `, pace: ${pace === true ? 'true' : `'${pace}'`}`} }) and its default transit ('measured': every window widened by the largest recent round trip)${pace === true ? `; pace: true spreads each window's worth over the window (a request of cost c waits c x ${o.limits.windowMs} ms / limit after the one before; the window, J longer, holds back the rest)` : pace === false ? '' : `; pace: '${pace}' spreads each window's worth over ${pace} (a request of cost c waits c x ${pace} / limit after the one before)`}; ${OURS_CHARGE[o.limits.mode]}; a 429's retry-after pauses it and the request is scheduled again (examples/llm/provider-client.ts)`,
  async run(o, send) {
    await runClient({
      limits: o.limits,
      call: send,
      jobs: o.jobs,
      seed: o.seed,
      shape: o.shape,
      ...(pace === false ? {} : { throttler: { pace } }),
    });
  },
});

/**
 * Against OpenAI (nothing given back, so no settle), each request counted from its send until its own answer
 * (`countUntil: 'done'`) and no transit: the provider counted it in between, so no server window can hold more
 * than the client's (docs/guarantees.md, "What the server sees"), whatever the uplink, with no J to measure.
 */
const oursUntilAnswered: QuotaContender = {
  name: "xstate-throttler (createThrottler, countUntil: 'done')",
  guessing: false,
  providers: ['openai'],
  configuration: (o) =>
    `createThrottler({ rate: { requests, tokens } at the stated limits per ${o.limits.windowMs} ms, strategy: 'sliding-window', serverLimits: serverLimits(call => call, { providerWindow: ${o.limits.windowMs}, followPolicy: false }), countUntil: 'done', transit: 0 }): each request counts in the window from its send until ${o.limits.windowMs} ms after its answer, no widening; ${OURS_CHARGE[o.limits.mode]}; a 429's retry-after pauses it and the request is scheduled again (examples/llm/provider-client.ts)`,
  async run(o, send) {
    const throttler = { countUntil: 'done', transit: 0 };
    await runClient({ limits: o.limits, call: send, jobs: o.jobs, seed: o.seed, shape: o.shape, throttler });
  },
};

export const QUOTA_CONTENDERS: readonly QuotaContender[] = [
  ours(false),
  ours(true),
  oursUntilAnswered,
  {
    name: 'p-queue 9 (strict)',
    guessing: true,
    configuration: (o) =>
      `new PQueue({ intervalCap: ${perWindow(o)}, interval: ${o.limits.windowMs}, strict: true }): min(requests, floor(${bindingName(o)} / guess)) per window, since a task has no cost; a 429 is added again after its retry-after`,
    async run(o, send) {
      const queue = new PQueue({ intervalCap: perWindow(o), interval: o.limits.windowMs, strict: true });
      const job = async (request: ModelRequest): Promise<void> => {
        for (;;) {
          const call = await queue.add(() => send(request));
          if (call.status !== 429) return;
          await sleep(retryAfterMs(call));
        }
      };
      await Promise.all(workload(o.jobs, o.seed, o.shape).map(job));
      queue.clear();
    },
  },
  {
    name: 'Bottleneck 2 (reservoir, weight)',
    guessing: true,
    configuration: (o) => bottleneckConfiguration(o, String(o.guess)),
    run: (o, send) => runBottleneck(o, send, () => o.guess),
  },
  {
    // What Bottleneck needs to match OpenAI's count: the charge computed per request, as its weight.
    name: 'Bottleneck 2 (reservoir, weight: openaiCharge)',
    guessing: false,
    providers: ['openai'],
    configuration: (o) => bottleneckConfiguration(o, 'openaiCharge(body).tokens'),
    run: (o, send) => runBottleneck(o, send, (request) => openaiCharge(request).tokens),
  },
];

/**
 * The guess in the binding quota, from the shape (uniform whole numbers; the model writes 30% to 100% of
 * max_tokens, 65% on average): OpenAI's charge max(max_tokens, prompt), Anthropic's output written (a request
 * needs its max_tokens free to go: the largest), or input and output. The mean rounded up to 10.
 */
export function guessTokens(mode: ProviderMode, kind: GuessKind, shape: WorkloadShape): number {
  const [p0, p1] = shape.promptTokens;
  const [m0, m1] = shape.maxTokens;
  const written = (0.3 + 1) / 2;
  let mean: number;
  let largest: number;
  if (mode === 'openai') {
    let sum = 0;
    for (let prompt = p0; prompt <= p1; prompt += 1)
      for (let most = m0; most <= m1; most += 1) sum += Math.max(prompt, most);
    mean = sum / ((p1 - p0 + 1) * (m1 - m0 + 1));
    largest = Math.max(p1, m1);
  } else if (mode === 'anthropic') {
    mean = ((m0 + m1) / 2) * written;
    largest = m1;
  } else {
    mean = (p0 + p1) / 2 + ((m0 + m1) / 2) * written;
    largest = p1 + m1;
  }
  const rounded = Math.ceil(mean / 10) * 10;
  return kind === 'mean' ? rounded : kind === 'largest' ? largest : Math.round(2 * mean);
}

/** What each accepted request counted in `quota` (after refunds), and what its answer used in that quota. */
const countedIn = (request: AcceptedRequest, quota: Quota): number => request.counted[quota] ?? 0;
function usedIn(request: AcceptedRequest, quota: Quota): number {
  // Anthropic's output counted after its refund is what the model wrote; OpenAI's tokens, the answer's usage.
  return quota === 'tokens' ? request.tokens : countedIn(request, quota);
}

/** The most `amount` sums to in any window [t, t + windowMs) over arrivals in time order. */
export function fullestWindow(
  accepted: readonly AcceptedRequest[],
  amount: (r: AcceptedRequest) => number,
  windowMs: number,
): number {
  let most = 0;
  let end = 0;
  let inWindow = 0;
  for (let start = 0; start < accepted.length; start += 1) {
    const from = (accepted[start] as AcceptedRequest).at;
    while (end < accepted.length && (accepted[end] as AcceptedRequest).at < from + windowMs) {
      inWindow += amount(accepted[end] as AcceptedRequest);
      end += 1;
    }
    most = Math.max(most, inWindow);
    inWindow -= amount(accepted[start] as AcceptedRequest);
  }
  return most;
}

/**
 * The mean of `amount` over every window [t, t + W) whose start t lies in the steady part: from a window
 * after the first arrival (a token bucket starts full, and lets its capacity through at once) to a window
 * before the last arrival (the tail, whose windows the queue no longer fills). Every start weighs the same,
 * so a burst at a window's edge counts in proportion to the starts whose window holds it: a request at `at`
 * counts in the windows starting in (at - W, at]. With fewer than a window of starts, from the first arrival.
 */
export function steadyMean(
  accepted: readonly AcceptedRequest[],
  amount: (r: AcceptedRequest) => number,
  windowMs: number,
): number {
  if (accepted.length === 0) return 0;
  const first = (accepted[0] as AcceptedRequest).at;
  const last = (accepted.at(-1) as AcceptedRequest).at;
  let from = first + windowMs;
  const to = Math.max(first, last - windowMs);
  if (to - from < windowMs) from = first;
  if (to <= from) return accepted.reduce((sum, request) => sum + amount(request), 0);
  let weighted = 0;
  for (const request of accepted) {
    const overlap = Math.min(to, request.at) - Math.max(from, request.at - windowMs);
    if (overlap > 0) weighted += amount(request) * overlap;
  }
  return weighted / (to - from);
}

/** The time at exactly the limit: a sliding window lets a window's worth go every window; a bucket its capacity, then its refill. */
function idealMs(accepted: readonly AcceptedRequest[], o: GuessOptions): number {
  const quotas: Quota[] =
    o.limits.mode === 'anthropic' ? ['requests', 'input-tokens', 'output-tokens'] : ['requests', 'tokens'];
  let windows = 0;
  for (const quota of quotas) {
    const counted = accepted.reduce((sum, request) => sum + countedIn(request, quota), 0);
    windows = Math.max(windows, counted / limitOf(o.limits, quota));
  }
  const spans = o.limits.mode === 'anthropic' ? windows - 1 : Math.ceil(windows) - 1;
  return Math.max(0, spans) * o.limits.windowMs;
}

async function runOne(
  provider: ProviderProcess,
  contender: QuotaContender,
  o: GuessOptions,
  network: Pick<LlmQuotaOptions, 'uplinkMs' | 'downlinkMs'>,
): Promise<LlmQuotaRun> {
  const { binding, ...stated } = o.limits;
  const { uplinkMs, downlinkMs } = network;
  const url = await provider.start({ limits: stated, seed: o.seed, uplinkMs, downlinkMs });
  const load = loadavg()[0] as number;
  const started = performance.now();
  let finished = started;
  let largestTripMs = 0;
  const send = async (request: ModelRequest): Promise<ModelCall> => {
    const sent = performance.now();
    const call = await callModel(url, request);
    const answered = performance.now();
    largestTripMs = Math.max(largestTripMs, answered - sent);
    if (call.status === 200) finished = answered;
    return call;
  };
  let error: string | undefined;
  try {
    await contender.run(o, send);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const { accepted, refused } = await provider.close();
  const limit = limitOf(o.limits, binding);
  const counted = (request: AcceptedRequest) => countedIn(request, binding);
  return {
    provider: o.limits.mode,
    name: contender.name,
    guess: contender.guessing ? o.guess : undefined,
    guessKind: undefined,
    configuration: contender.configuration(o),
    answered: accepted.length,
    refused: Object.values(refused).reduce((sum, count) => sum + (count ?? 0), 0),
    fullest: fullestWindow(accepted, counted, o.limits.windowMs) / limit,
    steadyUsed: steadyMean(accepted, (request) => usedIn(request, binding), o.limits.windowMs) / limit,
    steadyCounted: steadyMean(accepted, counted, o.limits.windowMs) / limit,
    finishMs: error === undefined ? finished - started : Number.NaN,
    idealMs: idealMs(accepted, o),
    largestTripMs,
    load,
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * Each provider's client (ours) through a server that never refuses, with no delays, untimed: the first run is
 * not billed for the first calls of the HTTP client, the server and the throttler (a cold start measured a
 * 1.5 s round trip, which a measured transit widens every window by).
 */
async function warmUp(provider: ProviderProcess, options: LlmQuotaOptions): Promise<void> {
  for (const mode of options.providers) {
    const stated = options.limits[mode];
    const limits = {
      ...stated,
      requests: 1e6,
      tokens: 1e9,
      inputTokens: 1e9,
      outputTokens: 1e9,
    };
    const url = await provider.start({ limits, seed: options.seed, uplinkMs: 0, downlinkMs: 0 });
    const call = (request: ModelRequest) => callModel(url, request);
    await runClient({ limits, call, jobs: 200, seed: options.seed, shape: options.shape });
    await provider.close();
  }
}

/** Every provider: ours (and Bottleneck with OpenAI's charge) once, then each guess's p-queue and Bottleneck. */
export async function llmQuota(
  options: LlmQuotaOptions = LLM_QUOTA_DEFAULTS,
  log: (line: string) => void = () => {},
): Promise<LlmQuotaRun[]> {
  const runs: LlmQuotaRun[] = [];
  const provider = forkProvider();
  try {
    await warmUp(provider, options);
    for (const mode of options.providers) {
      const base = { limits: options.limits[mode], jobs: options.jobs, shape: options.shape, seed: options.seed };
      const applies = (options.contenders ?? QUOTA_CONTENDERS).filter(
        (contender) => contender.providers?.includes(mode) ?? true,
      );
      const plan: Array<[QuotaContender, GuessKind | undefined]> = [
        ...applies
          .filter((contender) => !contender.guessing)
          .map((contender) => [contender, undefined] as [QuotaContender, undefined]),
        ...options.guesses.flatMap((kind) =>
          applies
            .filter((contender) => contender.guessing)
            .map((contender) => [contender, kind] as [QuotaContender, GuessKind]),
        ),
      ];
      for (const [contender, kind] of plan) {
        const guess = guessTokens(mode, kind ?? 'mean', options.shape);
        const run = await runOne(provider, contender, { ...base, guess }, options);
        runs.push({ ...run, guessKind: kind });
        log(
          `  W7 ${mode} ${contender.name}${kind === undefined ? '' : ` guess ${guess}`}: ${run.refused} 429s, ${(100 * run.steadyCounted).toFixed(1)}% counted, ${(run.finishMs / 1000).toFixed(1)} s (ideal ${(run.idealMs / 1000).toFixed(1)}), trip ${run.largestTripMs.toFixed(0)} ms, load ${run.load.toFixed(1)}${run.error ? ` FAILED ${run.error}` : ''}`,
        );
      }
    }
  } finally {
    await provider.exit();
  }
  return runs;
}
