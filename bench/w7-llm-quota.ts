/**
 * W7, a language-model quota (issue 26): N requests to a mock model server (examples/llm/) that allows
 * R requests and T tokens per window, sliding, stated only in its OpenAI-style headers, with a 429 and
 * `retry-after` past either. Each request's actual tokens are random (its prompt, 50 to 250, plus what
 * the model writes, 30% to 100% of `max_tokens`), known only from the answer; every contender charges the
 * same fixed guess per request, since none can know more before it sends, and ours settles it to the answer's
 * `usage` (estimate, then settle), which the others cannot. A refused request is sent again
 * after its retry-after, in the way each library offers. Measured at the server: the tokens it accepted
 * per window (the fullest window, and the mean over the run) against T, the 429s, and the time from the
 * first hand-over until the last request was answered 200, against the ideal (the actual tokens, or the
 * requests, at exactly the limit).
 *
 * Real timers and real HTTP on 127.0.0.1, one contender at a time, each against a fresh server.
 */
import Bottleneck from 'bottleneck';
import PQueue from 'p-queue';
import { callModel, type ModelCall, startMockModelServer } from '../examples/llm/mock-model-server.js';
import { promptOfTokens, tokensPerWindow } from '../examples/llm/model-limits.js';
import { NO_NETWORK_DELAY } from '../examples/llm/network.js';
import { createThrottler } from '../src/index.js';
import { serverLimits } from '../src/server-limits/index.js';
import { seededRandom } from '../test/support/random.js';

export interface LlmQuotaOptions {
  /** Requests per window. */
  requests: number;
  /** Tokens per window. */
  tokens: number;
  windowMs: number;
  jobs: number;
  /** The most the model may write per request; its actual share is random, 30% to 100%. */
  maxTokens: number;
  /** What every contender charges per request, in tokens: each guess is a run of every contender. */
  guesses: number[];
  /** The random sizes' seed, the same for every contender. */
  seed: number;
}

export const LLM_QUOTA_DEFAULTS: LlmQuotaOptions = {
  // A minute scaled to 5 s (retry-after counts whole seconds, so a shorter window would make every
  // 429 cost a large share of it); the mean request is 345 tokens, so tokens bind, not requests.
  requests: 250,
  tokens: 50_000,
  windowMs: 5_000,
  jobs: 600,
  maxTokens: 300,
  // The mean, rounded up (what a user who measured a day's traffic would pick), the largest a request
  // can be (prompt 250 + max_tokens 300: never a 429 from tokens), and twice the mean (an estimate
  // twice too high: what settling gives back).
  guesses: [350, 550, 690],
  seed: 7,
};

export interface LlmQuotaRun {
  name: string;
  guess: number;
  configuration: string;
  answered: number;
  refused: number;
  /** The tokens the server accepted in its fullest window, and the mean per window. */
  mostTokens: number;
  meanTokens: number;
  finishMs: number;
  /** The time at exactly the limit: the actual tokens over T (or the requests over R) windows, less the last. */
  idealMs: number;
  error?: string;
}

/** One run's options: one guess. */
type GuessOptions = Omit<LlmQuotaOptions, 'guesses'> & { guess: number };

/** What a contender does: every job sent through it, each retried after a 429 as the library allows. */
interface QuotaContender {
  name: string;
  configuration: (options: GuessOptions) => string;
  run: (options: GuessOptions, send: (job: number) => Promise<ModelCall>) => Promise<void>;
}

const perWindow = (options: GuessOptions): number =>
  Math.min(options.requests, Math.floor(options.tokens / options.guess));

const retryAfterMs = (call: ModelCall): number => Number(call.headers.get('retry-after') ?? 1) * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const QUOTA_CONTENDERS: readonly QuotaContender[] = [
  {
    name: 'xstate-throttler (createThrottler)',
    configuration: (o) =>
      `one throttler, createThrottler({ rate: { requests: ['${o.requests}/${o.windowMs}ms', '${o.requests / 5}/${o.windowMs / 5}ms'], tokens: ['${o.tokens}/${o.windowMs}ms', '${o.tokens / 5}/${o.windowMs / 5}ms'] }, strategy: 'sliding-window', serverLimits: serverLimits(pick, { providerWindow: '${o.windowMs}ms', followPolicy: false }) }), each request scheduled with cost { requests: 1, tokens: ${o.guess} } (the guess, an estimate) and settle: the answer's usage.total_tokens as its actual tokens (a 429, which the server counts in neither, settles to 0 in both); a 429's retry-after pauses it, and the request is scheduled again. The second rate of each dimension (a fifth of the limit per fifth of the window) keeps a window's worth from going at once: the server judges its window by arrival, and arrivals jitter`,
    async run(o, send) {
      const listen = serverLimits((call: ModelCall) => call, { providerWindow: o.windowMs, followPolicy: false });
      const fifth = (limit: number) => [
        { limit, interval: o.windowMs },
        { limit: Math.floor(limit / 5), interval: o.windowMs / 5 },
      ];
      const llm = createThrottler({
        rate: { requests: fifth(o.requests), tokens: fifth(o.tokens) },
        strategy: 'sliding-window',
        serverLimits: listen,
      });
      const cost = { requests: 1, tokens: o.guess };
      // What the server counted: a 200's tokens; a 429 counts in neither of its limits.
      const settle = (call: ModelCall): Record<string, number> =>
        call.status === 200 ? { tokens: call.usage?.total_tokens ?? o.guess } : { requests: 0, tokens: 0 };
      const job = async (n: number): Promise<void> => {
        // The 429's retry-after paused the throttler before this returns: scheduling again waits it out.
        while ((await llm.schedule(() => send(n), { cost, settle })).status === 429) {}
      };
      await Promise.all(Array.from({ length: o.jobs }, (_, n) => job(n)));
      await llm.stop();
    },
  },
  {
    name: 'p-queue 9 (strict)',
    configuration: (o) =>
      `new PQueue({ intervalCap: ${perWindow(o)}, interval: ${o.windowMs}, strict: true }): min(requests, floor(tokens / guess)) per window, since a task has no cost; a 429 is added again after its retry-after. It holds one limit only, so it cannot add a finer one beside (a fifth per fifth of the window alone would be a different, stricter limit)`,
    async run(o, send) {
      const queue = new PQueue({ intervalCap: perWindow(o), interval: o.windowMs, strict: true });
      const job = async (n: number): Promise<void> => {
        for (;;) {
          const call = await queue.add(() => send(n));
          if (call.status !== 429) return;
          await sleep(retryAfterMs(call));
        }
      };
      await Promise.all(Array.from({ length: o.jobs }, (_, n) => job(n)));
      queue.clear();
    },
  },
  {
    name: 'Bottleneck 2 (reservoir, weight)',
    configuration: (o) =>
      `new Bottleneck({ reservoir: ${o.tokens}, reservoirRefreshAmount: ${o.tokens}, reservoirRefreshInterval: ${o.windowMs}, minTime: ${o.windowMs / o.requests} }) with schedule({ weight: ${o.guess} }): tokens as the reservoir's weight, requests as minTime; a 429 throws, and the 'failed' handler retries the job after its retry-after`,
    async run(o, send) {
      const limiter = new Bottleneck({
        reservoir: o.tokens,
        reservoirRefreshAmount: o.tokens,
        reservoirRefreshInterval: o.windowMs,
        minTime: o.windowMs / o.requests,
      });
      limiter.on('failed', (error: { retryAfter?: number }) => error.retryAfter);
      const job = (n: number) =>
        limiter.schedule({ weight: o.guess }, async () => {
          const call = await send(n);
          if (call.status === 429) throw Object.assign(new Error('429'), { retryAfter: retryAfterMs(call) });
          return call;
        });
      await Promise.all(Array.from({ length: o.jobs }, (_, n) => job(n)));
      await limiter.stop({ dropWaitingJobs: true });
      limiter.disconnect();
    },
  },
];

async function runOne(contender: QuotaContender, o: GuessOptions): Promise<LlmQuotaRun> {
  // Seeded, so every contender gets the same sizes.
  const sizes = seededRandom(o.seed);
  const prompts = Array.from({ length: o.jobs }, () => 50 + Math.floor(sizes() * 201));
  // Each job's completion share is drawn at the server, from a stream of its own seeded the same.
  // The gateway that counts actual usage, answering at once, as W7 was measured (bench/README.md).
  const server = await startMockModelServer({
    ...o,
    mode: 'actual-usage',
    network: NO_NETWORK_DELAY,
    random: seededRandom(o.seed + 1),
  });
  const started = performance.now();
  let finished = started;
  const send = async (job: number): Promise<ModelCall> => {
    const content = promptOfTokens(prompts[job] as number);
    const call = await callModel(server.url, { messages: [{ role: 'user', content }], max_tokens: o.maxTokens });
    if (call.status === 200) finished = performance.now();
    return call;
  };
  const result: LlmQuotaRun = {
    name: contender.name,
    guess: o.guess,
    configuration: contender.configuration(o),
    answered: 0,
    refused: 0,
    mostTokens: 0,
    meanTokens: 0,
    finishMs: Number.NaN,
    idealMs: Number.NaN,
  };
  try {
    await contender.run(o, send);
    result.finishMs = finished - started;
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  }
  await server.close();
  const { accepted, refused } = server.limits;
  const used = tokensPerWindow(accepted, o.windowMs);
  const actual = accepted.reduce((sum, request) => sum + request.tokens, 0);
  const windows = Math.max(actual / o.tokens, accepted.length / o.requests);
  return {
    ...result,
    answered: accepted.length,
    refused: Object.values(refused).reduce((sum, count) => sum + (count ?? 0), 0),
    mostTokens: used.most,
    meanTokens: used.mean,
    idealMs: Math.max(0, Math.ceil(windows) - 1) * o.windowMs,
  };
}

export async function llmQuota(options: LlmQuotaOptions = LLM_QUOTA_DEFAULTS): Promise<LlmQuotaRun[]> {
  const runs: LlmQuotaRun[] = [];
  const { guesses, ...rest } = options;
  for (const guess of guesses) {
    for (const contender of QUOTA_CONTENDERS) runs.push(await runOne(contender, { ...rest, guess }));
  }
  return runs;
}
