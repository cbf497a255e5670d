// Listening to the server. A local HTTP server allows 5 requests per second and says so: every
// answer carries RateLimit-Policy and RateLimit (IETF draft), and past the limit it answers 429
// with Retry-After. The client guesses 8 per second, too fast. Its throttler's `serverLimits` option
// reads every answer as its task ends (readServerLimits: a PAUSE and a SET_RATE) and applies it before
// the next task may take the slot; after the first 429 there are no more.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createThrottler, formatRate } from '../src/index.js';
import { readServerLimits, type ServerLimits, serverLimits } from '../src/server-limits/index.js';

const LIMIT = 5;
const WINDOW_MS = 1_000;
const JOBS = 15;

// The server: a fixed window of 5, opened by the first request after the last window closed.
let windowStart = Number.NEGATIVE_INFINITY;
let used = 0;
const server = createServer((_request, response) => {
  const now = performance.now();
  if (now >= windowStart + WINDOW_MS) {
    windowStart = now;
    used = 0;
  }
  const refused = used >= LIMIT;
  if (!refused) used += 1;
  const resetSeconds = Math.ceil((windowStart + WINDOW_MS - now) / 1000);
  response.writeHead(refused ? 429 : 200, {
    'RateLimit-Policy': `"default";q=${LIMIT};w=${WINDOW_MS / 1000}`,
    RateLimit: `"default";r=${LIMIT - used};t=${resetSeconds}`,
    ...(refused ? { 'Retry-After': String(resetSeconds) } : {}),
  });
  response.end(refused ? 'too many requests' : 'ok');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

// The client: each task is one request, and its Response is what serverLimits() reads.
const throttler = createThrottler({ rate: '8/1s', strategy: 'sliding-window', serverLimits: serverLimits() });
const started = performance.now();
const requests: Array<{ sentAt: number; status: number }> = [];
let firstRefusal: { at: number; said: string } | undefined;

async function request(): Promise<Response> {
  const sentAt = performance.now();
  const response = await fetch(url);
  requests.push({ sentAt, status: response.status });
  return response;
}

async function job(n: number): Promise<number> {
  for (;;) {
    const response = await throttler.schedule(request); // the server's answer is applied by now
    await response.text();
    if (response.status !== 429) return n;
    firstRefusal ??= { at: performance.now(), said: describe(readServerLimits(response)) };
  }
}

function describe(limits: ServerLimits): string {
  return limits.events
    .map((event) => (event.type === 'PAUSE' ? `PAUSE ${event.duration} ms` : `SET_RATE ${event.rate.map(formatRate)}`))
    .join(', ');
}

const done = await Promise.all(Array.from({ length: JOBS }, (_, n) => job(n + 1)));
throttler.stop();
server.closeAllConnections();
server.close();

const heardAt = firstRefusal?.at ?? Number.POSITIVE_INFINITY;
const before = requests.filter((request) => request.sentAt <= heardAt);
const after = requests.filter((request) => request.sentAt > heardAt);
const refusals = (list: typeof requests) => list.filter((request) => request.status === 429).length;
console.log(`server: ${LIMIT} per ${WINDOW_MS} ms; client: started at 8/1s`);
console.log(`sent before the first 429 came back: ${before.length}, of which 429: ${refusals(before)}`);
console.log(`the first 429 said: ${firstRefusal?.said ?? 'nothing (there was none)'}`);
console.log(`sent after it: ${after.length}, of which 429: ${refusals(after)}`);
console.log(`${done.length} jobs done in ${Math.round(performance.now() - started)} ms`);
console.log(`429s after the first: ${refusals(after)}`);
