/**
 * A mock language-model provider on node:http, on an ephemeral port of 127.0.0.1: `POST /` with a body
 * as the real APIs take it (`{ "messages": [{ "role": "user", "content": "..." }], "max_tokens": 200 }`)
 * answers 200 with `{ "usage": ... }` (OpenAI's form, or Anthropic's in mode `'anthropic'`), 429 with
 * `{ "error": { "type": "rate_limit_error" } }` and `retry-after`, or 400; the provider's rate-limit
 * headers on every answer. How it counts is model-limits.ts' (one module with the virtual-time network's).
 * Each request is held an uplink time (default 20-150 ms, seeded) before it is counted, the model writes
 * for `generationMs`, and the answer is held a downlink time (default 5-40 ms). Time is the server's `now`
 * (default `performance.now`), so that two processes' requests are judged on one clock: the server's.
 * Used by examples/llm-client.ts, the tests and the bench (W7).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ModelAnswer, ModelLimits, type ModelLimitsOptions, type ModelRequest } from './model-limits.js';
import { type NetworkOptions, network, sleep } from './network.js';

export interface MockModelServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** What it accepted and refused so far. */
  readonly limits: ModelLimits;
  close(): Promise<void>;
}

export interface MockModelServerOptions extends ModelLimitsOptions {
  now?: () => number;
  /** The uplink and downlink delays (default `NETWORK_JITTER`; `NO_NETWORK_DELAY` for none). */
  network?: NetworkOptions;
}

/** The JSON body of an answer, as the providers write it. */
export function answerBody(answer: ModelAnswer): Record<string, unknown> {
  if (answer.status === 200) return { usage: answer.usage };
  if (answer.status === 429) {
    return { error: { type: 'rate_limit_error', message: `Rate limit reached on ${answer.refusedBy}` } };
  }
  return { error: { type: 'invalid_request_error', message: answer.error } };
}

export async function startMockModelServer(options: MockModelServerOptions): Promise<MockModelServer> {
  const limits = new ModelLimits(options);
  const now = options.now ?? (() => performance.now());
  const delays = network(options.network);
  const server = createServer((request, response) => {
    readBody(request).then(
      async (body) => {
        await sleep(delays.uplink());
        let parsed: ModelRequest;
        try {
          parsed = JSON.parse(body) as ModelRequest;
        } catch {
          parsed = { max_tokens: Number.NaN };
        }
        const answer = limits.answer(now(), parsed);
        if (answer.status === 200) await sleep(options.generationMs ?? 0);
        await sleep(delays.downlink());
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(JSON.stringify(answerBody(answer)));
      },
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    limits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** What a client gets back from one call: the status, the answer's body, and the Response's headers. */
export interface ModelCall {
  status: number;
  /** `{ usage }` on a 200, `{ error }` otherwise. */
  body: { usage?: any; error?: { type: string; message?: string } };
  /** The body's usage, when there is one (OpenAI's form, or Anthropic's). */
  usage: any;
  headers: Headers;
}

/** One call to the mock provider: `fetch` with the request body. */
export async function callModel(url: string, request: ModelRequest, signal?: AbortSignal): Promise<ModelCall> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
    signal,
  });
  const body = (await response.json()) as ModelCall['body'];
  return { status: response.status, body, usage: body.usage, headers: response.headers };
}
