/**
 * How a recorded task ended, read from what it returned or threw: an HTTP answer with status 429 (a
 * `Response`, an axios-style error's `response`, anything with `status` or `statusCode`) is `'429'`, with
 * its Retry-After in ms (seconds or an HTTP date); anything else thrown is `'error'`, returned `'ok'`.
 */
import type { TaskEnd } from './format.js';

/** Reads a task's end: `value` when it returned, `error` when it threw (`failed`). */
export type OutcomeReader = (value: unknown, error: unknown, failed: boolean) => TaskEnd;

interface Answer {
  status?: unknown;
  statusCode?: unknown;
  headers?: unknown;
  response?: Answer;
}

function answerOf(value: unknown): Answer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const answer = value as Answer;
  if (answer.status === 429 || answer.statusCode === 429) return answer;
  return answer.response?.status === 429 || answer.response?.statusCode === 429 ? answer.response : undefined;
}

function retryAfterOf(headers: unknown): number | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const read = (headers as { get?: unknown }).get;
  const raw =
    typeof read === 'function'
      ? (read as (name: string) => unknown).call(headers, 'retry-after')
      : ((headers as Record<string, unknown>)['retry-after'] ?? (headers as Record<string, unknown>)['Retry-After']);
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const text = String(raw).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The default OutcomeReader. */
export function defaultOutcome(value: unknown, error: unknown, failed: boolean): TaskEnd {
  const answer = answerOf(failed ? error : value);
  if (answer === undefined) return { outcome: failed ? 'error' : 'ok' };
  return { outcome: '429', retryAfter: retryAfterOf(answer.headers) };
}

/** Why a task that never started was taken out, as the machine's `dropped` / `rejected` reasons name it. */
export function reasonOfFailure(error: unknown, kind: 'dropped' | 'rejected'): string {
  const failure = error as { name?: unknown; overflow?: unknown } | null;
  const name = typeof failure === 'object' && failure !== null ? failure.name : undefined;
  if (name === 'ThrottlerOverflowError') return kind === 'rejected' ? 'overflow' : String(failure?.overflow);
  if (kind === 'rejected') return 'invalid';
  return name === 'ThrottlerExpiredError' ? 'expired' : 'cancelled';
}
