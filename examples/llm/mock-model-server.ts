/**
 * A mock language-model server on node:http, on an ephemeral port of 127.0.0.1: `POST /` with
 * `{ "prompt_tokens": 120, "max_tokens": 200 }` answers 200 with `{ "usage": { prompt_tokens,
 * completion_tokens, total_tokens } }`, or 429 with `{ "error": { "type": "rate_limit_exceeded" } }`
 * and `retry-after`, with OpenAI's rate-limit headers on every answer; the limits are model-limits.ts'.
 * Used by examples/llm-client.ts, the tests and the bench (W7). Time is the server's `now` (default
 * `performance.now`), so that two processes' requests are judged on one clock: the server's.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ModelLimits, type ModelLimitsOptions, type ModelRequest, type Usage } from './model-limits.js';

export interface MockModelServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** What it accepted and refused so far. */
  readonly limits: ModelLimits;
  close(): Promise<void>;
}

export interface MockModelServerOptions extends ModelLimitsOptions {
  now?: () => number;
  /** Ms each answer takes, as a model's latency (default 0). */
  latencyMs?: number;
}

export async function startMockModelServer(options: MockModelServerOptions): Promise<MockModelServer> {
  const limits = new ModelLimits(options);
  const now = options.now ?? (() => performance.now());
  const server = createServer((request, response) => {
    readBody(request).then(
      async (body) => {
        const arrived = now();
        let parsed: ModelRequest;
        try {
          parsed = JSON.parse(body) as ModelRequest;
        } catch {
          parsed = { prompt_tokens: Number.NaN, max_tokens: Number.NaN };
        }
        const answer = limits.answer(arrived, parsed ?? {});
        if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
        const payload =
          answer.status === 200
            ? { usage: answer.usage }
            : answer.status === 429
              ? { error: { type: 'rate_limit_exceeded', message: `Rate limit reached on ${answer.refusedBy}` } }
              : { error: { type: 'invalid_request_error', message: answer.error } };
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(JSON.stringify(payload));
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

/** What a client gets back from one call: the status, the usage on a 200, and the Response's headers. */
export interface ModelCall {
  status: number;
  usage: Usage | undefined;
  headers: Headers;
}

/** One call to the mock server: `fetch` with the prompt's size and the most it lets the model write. */
export async function callModel(url: string, request: ModelRequest, signal?: AbortSignal): Promise<ModelCall> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
    signal,
  });
  const body = (await response.json()) as { usage?: Usage };
  return { status: response.status, usage: body.usage, headers: response.headers };
}
