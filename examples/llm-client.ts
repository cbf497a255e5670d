/**
 * A language-model client: one throttler for requests and tokens at once. A mock model server
 * (examples/llm/) allows 30 requests and 6,000 tokens per second (a provider's minute, scaled down), and
 * says so only in its OpenAI-style headers. 150 requests go through one throttler with
 * `rate: { requests, tokens }`, each costing `{ requests: 1, tokens: estimate }` (the prompt's size plus
 * `max_tokens`: an upper bound, since the actual size is known only in the answer) and settled to the
 * answer's `usage.total_tokens`, so the tokens an answer did not use are free again at once. The
 * throttler reads every answer (`serverLimits`): a 429's retry-after pauses it. Prints the tokens per
 * second used against the limit, the 429s, and draws the throttler's timeline (marks in estimated tokens).
 *
 * One process, on purpose: a shared Redis store does not take rates in dimensions yet. A fleet sharing one
 * quota today either gives each process its share of both limits (no store; a process cannot use what
 * another leaves), or keeps one throttler per dimension on the store, the tokens one settling its
 * estimates (docs/llm-clients.md, "The example").
 * Run: npx tsx examples/llm-client.ts
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createThrottler } from '../src/index.js';
import { serverLimits } from '../src/server-limits/index.js';
import { recordTimeline } from '../src/timeline/index.js';
import { callModel, type ModelCall, startMockModelServer } from './llm/mock-model-server.js';
import { tokensPerWindow } from './llm/model-limits.js';

const LIMITS = { requests: 30, tokens: 6_000, windowMs: 1_000 };
const REQUESTS = 150;
const MAX_TOKENS = 200;

const server = await startMockModelServer(LIMITS);
// Each limit, and a fifth of it per fifth of the window: the server judges its window when a request
// arrives, and arrivals jitter, so a window's worth sent at once can meet the tail of the last one there
// (each 429 costs a whole second of retry-after). The finer window costs some use: an estimate must fit
// a fifth of the limit, not the whole.
const rate = {
  requests: [`${LIMITS.requests}/1s`, `${LIMITS.requests / 5}/200ms`],
  tokens: [`${LIMITS.tokens}/1s`, `${LIMITS.tokens / 5}/200ms`],
};
const llm = createThrottler({
  rate,
  strategy: 'sliding-window',
  // The headers' limits are per providerWindow; followPolicy: false keeps the configured rates (the
  // server states the same) and takes only pauses: a 429's retry-after, a quota with nothing left.
  serverLimits: serverLimits((call: ModelCall) => call, { providerWindow: '1s', followPolicy: false }),
});
// The timeline counts each delivery's cost as it was sent, the estimate: settled, a window may hold more
// estimated tokens than the limit while the actual tokens stay within it, so it measures the requests.
const recording = recordTimeline(llm.actor, { rate: { requests: rate.requests } });
/** What the server counted: a 200's tokens; a refused request counts in neither of its limits. */
const settle = (call: ModelCall): Record<string, number> =>
  call.status === 200 && call.usage !== undefined ? { tokens: call.usage.total_tokens } : { requests: 0, tokens: 0 };

let refused = 0;
let estimated = 0;
const job = async (): Promise<void> => {
  const prompt = 50 + Math.floor(Math.random() * 100);
  const estimate = prompt + MAX_TOKENS;
  for (;;) {
    estimated += estimate;
    const call = await llm.schedule(() => callModel(server.url, { prompt_tokens: prompt, max_tokens: MAX_TOKENS }), {
      cost: { requests: 1, tokens: estimate },
      settle,
    });
    if (call.status !== 429) return;
    refused += 1;
  }
};
const started = performance.now();
await Promise.all(Array.from({ length: REQUESTS }, job));
const seconds = (performance.now() - started) / 1000;
recording.stop();
const file = join(tmpdir(), 'xstate-throttler-llm-client.svg');
writeFileSync(file, recording.svg({ dimension: 'tokens', title: 'one throttler; marks: estimated tokens' }));
await llm.stop();
await server.close();

const { accepted, windowMs } = server.limits;
const used = tokensPerWindow(accepted, windowMs);
const actual = accepted.reduce((sum, request) => sum + request.tokens, 0);
const share = (tokens: number) => `${Math.round((100 * tokens) / LIMITS.tokens)}%`;
console.log(
  `${accepted.length} requests answered; limits ${LIMITS.requests} requests and ${LIMITS.tokens} tokens per ${windowMs} ms`,
);
console.log(
  `tokens per window: most ${used.most} (${share(used.most)} of the limit), mean ${Math.round(used.mean)} (${share(used.mean)})`,
);
console.log(
  `estimated ${estimated} tokens, used ${actual} (${Math.round((100 * actual) / estimated)}%): settling gave back the rest`,
);
// The time the actual tokens take at exactly the limit: the first window at once, then a window per limit's worth.
const ideal = Math.max(0, Math.ceil(actual / LIMITS.tokens) - 1) * (windowMs / 1000);
console.log(`finished in ${seconds.toFixed(1)} s; the actual tokens at exactly the limit: ${ideal.toFixed(1)} s`);
console.log(
  `429s: ${refused} (server: ${server.limits.refused.requests} on requests, ${server.limits.refused.tokens} on tokens)`,
);
console.log(`timeline of the throttler (marks: estimated tokens) written to ${file}`);
