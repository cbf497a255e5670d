/**
 * A language-model client in two processes, one quota. A mock model server (examples/llm/) allows 30
 * requests and 6,000 tokens per second (a provider's minute, scaled down), and says so only in its
 * OpenAI-style headers. This process and a copy of itself (forked) each send 50 requests through one
 * throttler with `rate: { requests, tokens }` on one Redis store, each request costing
 * `{ requests: 1, tokens: estimate }` (the prompt's size plus `max_tokens`: an upper bound, since the
 * actual size is known only in the answer) and settled to the answer's `usage.total_tokens`, so the
 * tokens an answer did not use are free again at once, for both processes. Each throttler reads every
 * answer (`serverLimits`): a 429's retry-after pauses it. Prints the tokens per second used against the
 * limit and the 429s, and draws both processes' timelines (marks in estimated tokens).
 * Needs a Redis at REDIS_URL (default 127.0.0.1:6379). Run: npx tsx examples/llm-client.ts
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createThrottler } from '../src/index.js';
import { createRedisStore } from '../src/redis/index.js';
import { serverLimits } from '../src/server-limits/index.js';
import { recordTimeline, renderTimelines, type TimelineEvent } from '../src/timeline/index.js';
import { callModel, type ModelCall, startMockModelServer } from './llm/mock-model-server.js';
import { tokensPerWindow } from './llm/model-limits.js';

const LIMITS = { requests: 30, tokens: 6_000, windowMs: 1_000 };
const REQUESTS = 50;
const MAX_TOKENS = 200;
// A store name of its own per run, so that runs (and other users of the same Redis) never share counts.
const [role = 'first', url = '', name = `example-llm-${process.pid}-${Date.now()}`] = process.argv.slice(2);
// Each limit, and a fifth of it per fifth of the window: the server judges its window when a request
// arrives, and arrivals jitter, so a window's worth sent at once can meet the tail of the last one there
// (each 429 costs a whole second of retry-after). The finer window costs some use: an estimate must fit
// a fifth of the limit, not the whole.
const rate = {
  requests: [`${LIMITS.requests}/1s`, `${LIMITS.requests / 5}/200ms`],
  tokens: [`${LIMITS.tokens}/1s`, `${LIMITS.tokens / 5}/200ms`],
};
/** What the server counted: a 200's tokens; a refused request counts in neither of its limits. */
const settle = (call: ModelCall): Record<string, number> =>
  call.status === 200 && call.usage !== undefined ? { tokens: call.usage.total_tokens } : { requests: 0, tokens: 0 };

/** One process's part: what it estimated, the 429s it got, and its timeline's events on the host's clock. */
interface Part {
  estimated: number;
  refused: number;
  events: TimelineEvent[];
}

async function run(url: string): Promise<Part> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const store = createRedisStore({ redis, name });
  const llm = createThrottler({
    rate,
    strategy: 'sliding-window',
    store,
    // The headers' limits are per providerWindow; followPolicy: false keeps the configured rates (the
    // server states the same) and takes only pauses: a 429's retry-after, a quota with nothing left.
    serverLimits: serverLimits((call: ModelCall) => call, { providerWindow: '1s', followPolicy: false }),
  });
  const recording = recordTimeline(llm.actor);
  const part: Part = { estimated: 0, refused: 0, events: [] };
  const job = async (): Promise<void> => {
    const prompt = 50 + Math.floor(Math.random() * 100);
    const estimate = prompt + MAX_TOKENS;
    for (;;) {
      part.estimated += estimate;
      const call = await llm.schedule(() => callModel(url, { prompt_tokens: prompt, max_tokens: MAX_TOKENS }), {
        cost: { requests: 1, tokens: estimate },
        settle,
      });
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
  const used = tokensPerWindow(accepted, windowMs);
  const actual = accepted.reduce((sum, request) => sum + request.tokens, 0);
  const estimated = parts.reduce((sum, part) => sum + part.estimated, 0);
  const seconds = ((accepted.at(-1)?.at ?? 0) - (accepted[0]?.at ?? 0)) / 1000;
  const share = (tokens: number) => `${Math.round((100 * tokens) / LIMITS.tokens)}%`;
  console.log(
    `2 processes, ${accepted.length} requests answered; limits ${LIMITS.requests} requests and ${LIMITS.tokens} tokens per ${windowMs} ms`,
  );
  console.log(
    `tokens per window: most ${used.most} (${share(used.most)} of the limit), mean ${Math.round(used.mean)} (${share(used.mean)})`,
  );
  console.log(
    `estimated ${estimated} tokens, used ${actual} (${Math.round((100 * actual) / estimated)}%): settling gave back the rest`,
  );
  // The time the actual tokens take at exactly the limit: the first window at once, then a window per limit's worth.
  const ideal = Math.max(0, Math.ceil(actual / LIMITS.tokens) - 1) * (windowMs / 1000);
  console.log(
    `first to last answer ${seconds.toFixed(1)} s; the actual tokens at exactly the limit: ${ideal.toFixed(1)} s`,
  );
  const [mine, other] = parts as [Part, Part];
  console.log(
    `429s: ${mine.refused + other.refused} (server: ${refused.requests} on requests, ${refused.tokens} on tokens)`,
  );
  // A timeline counts each delivery's cost as it was sent, the estimate: settled, a window may hold more
  // estimated tokens than the limit while the actual tokens stay within it, so it measures the requests.
  const file = join(tmpdir(), 'xstate-throttler-llm-client.svg');
  const panel = (part: Part, title: string) => ({
    events: part.events,
    rate: { requests: rate.requests },
    dimension: 'tokens',
    title,
  });
  writeFileSync(
    file,
    renderTimelines([panel(mine, 'this process; marks: estimated tokens'), panel(other, 'the other process')]),
  );
  console.log(`timeline of both processes (marks: estimated tokens) written to ${file}`);
}
