/**
 * A language-model client in two processes, one quota. A mock model server (examples/llm/) allows 30
 * requests and 6,000 tokens per second (a provider's minute, scaled down), and says so only in its
 * OpenAI-style headers. This process and a copy of itself (forked) each send 25 requests through two
 * throttlers on one Redis store: one counts requests, the other tokens, each request costing its
 * estimate (the prompt's size plus `max_tokens`), since its actual size is known only in the answer.
 * Both throttlers read every answer (`serverLimits`): a 429's retry-after pauses them. Prints the tokens
 * per second used against the limit, the 429s, and draws this process's timeline.
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
import { recordTimeline, renderTimelines } from '../src/timeline/index.js';
import { callModel, type ModelCall, startMockModelServer } from './llm/mock-model-server.js';
import { tokensPerWindow } from './llm/model-limits.js';

const LIMITS = { requests: 30, tokens: 6_000, windowMs: 1_000 };
const REQUESTS = 25;
const MAX_TOKENS = 200;
const [role = 'first', url = '', name = `example-llm-${process.pid}-${Date.now()}`] = process.argv.slice(2);

/** One process's part: its two throttlers on the shared store, its requests; the 429s it got. */
async function run(url: string, draw?: (svg: string) => void): Promise<number> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const requestStore = createRedisStore({ redis, name: `${name}:requests` });
  const tokenStore = createRedisStore({ redis, name: `${name}:tokens` });
  // The headers' limits are per providerWindow; followPolicy: false keeps the configured rates (the
  // server states the same) and takes only pauses: a 429's retry-after, a quota with nothing left.
  const listen = serverLimits((call: ModelCall) => call, { providerWindow: '1s', followPolicy: false });
  // Seam: once a rate may have dimensions and a cost may be settled, these two throttlers become one,
  //   createThrottler({ rate: { requests: '30/1s', tokens: '6000/1s' }, store, serverLimits })
  // scheduled with { cost: { requests: 1, tokens: estimate }, settle: (call) => ({ tokens: call.usage.total_tokens }) },
  // and the tokens an answer did not use are free again at once (docs/llm-clients.md).
  const requests = createThrottler({
    rate: `${LIMITS.requests}/1s`,
    strategy: 'sliding-window',
    store: requestStore,
    serverLimits: listen,
  });
  const tokens = createThrottler({
    rate: `${LIMITS.tokens}/1s`,
    strategy: 'sliding-window',
    store: tokenStore,
    serverLimits: listen,
  });
  const panels = [
    { actor: requests.actor, rate: `${LIMITS.requests}/1s`, title: 'requests (this process)' },
    { actor: tokens.actor, rate: `${LIMITS.tokens}/1s`, title: 'tokens by estimate (this process)' },
  ].map(({ actor, ...panel }) => ({ ...panel, recording: recordTimeline(actor) }));
  let refused = 0;
  const job = async (): Promise<void> => {
    const prompt = 50 + Math.floor(Math.random() * 100);
    const estimate = prompt + MAX_TOKENS;
    for (;;) {
      // Tokens first (the scarcer), then a request slot; both throttlers hear the answer.
      const call = await tokens.schedule(
        () => requests.schedule(() => callModel(url, { prompt_tokens: prompt, max_tokens: MAX_TOKENS })),
        {
          cost: estimate,
        },
      );
      if (call.status !== 429) return;
      refused += 1;
    }
  };
  await Promise.all(Array.from({ length: REQUESTS }, job));
  for (const { recording } of panels) recording.stop();
  draw?.(renderTimelines(panels.map(({ recording, ...panel }) => ({ events: recording.events, ...panel }))));
  await Promise.all([requests.stop(), tokens.stop()]);
  await Promise.all([requestStore.close(), tokenStore.close()]);
  await redis.quit();
  return refused;
}

if (role === 'second') {
  process.send?.(await run(url));
} else {
  const server = await startMockModelServer(LIMITS);
  const second = fork(fileURLToPath(import.meta.url), ['second', server.url, name], { execArgv: process.execArgv });
  const theirs = new Promise<number>((resolve) => second.once('message', (refused) => resolve(refused as number)));
  const file = join(tmpdir(), 'xstate-throttler-llm-client.svg');
  const [mine, other] = await Promise.all([run(server.url, (svg) => writeFileSync(file, svg)), theirs]);
  await server.close();

  const { accepted, refused, windowMs } = server.limits;
  const used = tokensPerWindow(accepted, windowMs);
  const share = (tokens: number) => `${Math.round((100 * tokens) / LIMITS.tokens)}%`;
  console.log(
    `2 processes, ${accepted.length} requests answered; limits ${LIMITS.requests} requests and ${LIMITS.tokens} tokens per ${windowMs} ms`,
  );
  console.log(
    `tokens per window: most ${used.most} (${share(used.most)} of the limit), mean ${Math.round(used.mean)} (${share(used.mean)})`,
  );
  console.log(`429s: ${mine + other} (server: ${refused.requests} on requests, ${refused.tokens} on tokens)`);
  console.log(`the estimates held back ${share(LIMITS.tokens - used.mean)} of the quota: settling them would free it`);
  console.log(`timeline of this process's two throttlers written to ${file}`);
}
