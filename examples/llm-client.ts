/**
 * A language-model client in two processes, one quota, counted as the provider counts it. A mock provider
 * (examples/llm/) in the mode `LLM_PROVIDER` names (`openai`, the default; `anthropic`; `actual-usage`)
 * states its limits per 2 s (a minute, scaled down) only in its headers, and holds each request 20-150 ms
 * before it counts it. This process and a copy of itself (forked) each send 50 requests through one
 * throttler on one Redis store, each charged from the body it sends by the provider's helper
 * (`openaiCharge`: the larger of max_tokens and the size estimate, nothing settled, since OpenAI gives
 * nothing back; `anthropicCharge` and `anthropicSettle`: input and output apart, output reserved at
 * max_tokens and settled to what was written; `actualUsageCharge` and `actualUsageSettle`), with
 * `transit` the uplink's spread (130 ms), so that sends in one window never arrive in one of the provider's. Each throttler reads every answer (`serverLimits`): a 429's retry-after pauses
 * it. Prints what the provider counted per window against its limit and the 429s, and draws both
 * processes' timelines. Needs a Redis at REDIS_URL (default 127.0.0.1:6379).
 * Run: npx tsx examples/llm-client.ts (or LLM_PROVIDER=anthropic npx tsx examples/llm-client.ts)
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createThrottler, type Rate } from '../src/index.js';
import { createRedisStore } from '../src/redis/index.js';
import {
  actualUsageAccounting,
  anthropicAccounting,
  openaiAccounting,
  serverLimits,
} from '../src/server-limits/index.js';
import { recordTimeline, renderTimelines, type TimelineEvent } from '../src/timeline/index.js';
import { callModel, type ModelCall, startMockModelServer } from './llm/mock-model-server.js';
import { type ModelRequest, type ProviderMode, promptOfTokens, tokensPerWindow } from './llm/model-limits.js';
import { NETWORK_JITTER } from './llm/network.js';
import { clientRates } from './llm/provider-client.js';

const PROVIDER = (process.env.LLM_PROVIDER ?? 'openai') as ProviderMode;
const ACCOUNTING = { openai: openaiAccounting, anthropic: anthropicAccounting, 'actual-usage': actualUsageAccounting }[
  PROVIDER
];
if (ACCOUNTING === undefined)
  throw new Error(`LLM_PROVIDER must be openai, anthropic or actual-usage, got ${PROVIDER}`);
const LIMITS =
  PROVIDER === 'anthropic'
    ? { mode: PROVIDER, requests: 60, inputTokens: 8_000, outputTokens: 2_000, windowMs: 2_000 }
    : { mode: PROVIDER, requests: 60, tokens: 4_000, windowMs: 2_000 };
/** The quota the provider runs out of first, whose use is printed. */
const BINDING = PROVIDER === 'anthropic' ? 'output-tokens' : 'tokens';
const REQUESTS = 50;
const MAX_TOKENS = 200;
// A store name of its own per run, so that runs (and other users of the same Redis) never share counts.
const [role = 'first', url = '', name = `example-llm-${process.pid}-${Date.now()}`] = process.argv.slice(2);
// The uplink's spread: two requests sent a window apart may arrive up to this much closer together, and the
// provider counts them when they arrive, so the throttler counts every window this much longer (`transit`).
// A store takes it stated, every process the same (without one, `serverLimits` measures it by default).
const SPREAD = NETWORK_JITTER.uplinkMs[1] - NETWORK_JITTER.uplinkMs[0];
const rate = clientRates(LIMITS);

/** One process's part: the 429s it got, and its timeline's events on the host's clock. */
interface Part {
  refused: number;
  events: TimelineEvent[];
}

async function run(url: string): Promise<Part> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const store = createRedisStore({ redis, name });
  const llm = createThrottler({
    rate,
    strategy: ACCOUNTING.strategy,
    transit: SPREAD,
    store,
    // The headers' limits are per providerWindow; followPolicy: false keeps the configured rates (the
    // server states the same) and takes only pauses: a 429's retry-after, a quota with nothing left.
    serverLimits: serverLimits((call: ModelCall) => call, { providerWindow: LIMITS.windowMs, followPolicy: false }),
  });
  const recording = recordTimeline(llm.actor);
  const part: Part = { refused: 0, events: [] };
  const settle = ACCOUNTING.settle;
  const job = async (): Promise<void> => {
    const body: ModelRequest = {
      messages: [{ role: 'user', content: promptOfTokens(50 + Math.floor(Math.random() * 100)) }],
      max_tokens: MAX_TOKENS,
    };
    // What the provider will count for this body as it arrives; what it gives back, if anything, when it ends.
    const cost = ACCOUNTING.charge(body);
    for (;;) {
      const call = await llm.schedule(
        () => callModel(url, body),
        // A refused request is not settled: it keeps its charge, whatever the provider counted for it.
        settle === undefined
          ? { cost }
          : { cost, settle: (answer) => (answer.status === 200 ? settle(answer.body) : {}) },
      );
      if (call.status !== 429) return;
      part.refused += 1;
    }
  };
  await Promise.all(Array.from({ length: REQUESTS }, job));
  recording.stop();
  await llm.stop();
  await store.close();
  await redis.quit();
  // On the host's clock (each process's performance.now() starts at its own origin), without the messages.
  const shift = (at: number) => at + performance.timeOrigin;
  part.events = recording.events.map((event) =>
    event.type === 'delivered'
      ? { type: 'delivered', cost: event.cost, at: shift(event.at), queuedAt: shift(event.queuedAt) }
      : 'at' in event && event.at !== undefined
        ? { ...event, at: shift(event.at), message: undefined }
        : event,
  );
  return part;
}

if (role === 'second') {
  const part = await run(url);
  process.send?.(part, () => process.disconnect());
} else {
  const server = await startMockModelServer(LIMITS);
  const second = fork(fileURLToPath(import.meta.url), ['second', server.url, name], { execArgv: process.execArgv });
  const theirs = new Promise<Part>((resolve, reject) => {
    second.once('message', (part) => resolve(part as Part));
    second.once('exit', (code) => reject(new Error(`the second process exited with ${code} before reporting`)));
  });
  const exited = new Promise<void>((resolve) => second.once('exit', () => resolve()));
  const parts = await Promise.all([run(server.url), theirs]);
  await exited;
  await server.close();

  const { accepted, refused, windowMs } = server.limits;
  const limit = (LIMITS.mode === 'anthropic' ? LIMITS.outputTokens : LIMITS.tokens) as number;
  const counted = accepted.map((request) => ({ at: request.at, tokens: request.counted[BINDING] ?? 0 }));
  const used = tokensPerWindow(counted, windowMs);
  const share = (tokens: number) => `${Math.round((100 * tokens) / limit)}%`;
  const [mine, other] = parts as [Part, Part];
  console.log(`provider: ${PROVIDER}; the client charges with ${ACCOUNTING.charge.name}, settles ${settleName()}`);
  console.log(`2 processes, ${accepted.length} requests answered; the ${BINDING} limit: ${limit} per ${windowMs} ms`);
  console.log(
    `${BINDING} counted per window: most ${Math.round(used.most)} (${share(used.most)} of the limit), mean ${Math.round(used.mean)} (${share(used.mean)})`,
  );
  console.log(`429s: ${mine.refused + other.refused} (server: ${JSON.stringify(refused)})`);
  // A timeline counts each delivery's cost as it was charged: settled, a window may hold more charged
  // tokens than the limit while what the provider counted stays within it, so it measures the requests.
  const file = join(tmpdir(), 'xstate-throttler-llm-client.svg');
  const panel = (part: Part, title: string) => ({
    events: part.events,
    rate: { requests: rate.requests as Rate },
    dimension: BINDING,
    title,
  });
  writeFileSync(
    file,
    renderTimelines([panel(mine, `this process; marks: charged ${BINDING}`), panel(other, 'the other process')]),
  );
  console.log(`timeline of both processes (marks: charged ${BINDING}) written to ${file}`);
}

function settleName(): string {
  return ACCOUNTING.settle === undefined
    ? 'nothing (the provider gives nothing back)'
    : `with ${ACCOUNTING.settle.name}`;
}
