import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * examples/otel-prometheus.ts as a user runs it (its own process, real timers), scraped over HTTP as
 * Prometheus would: the port is the one it chose (PORT 0: any free one) and printed. It keeps serving
 * (LINGER_MS) until this test ends it with SIGTERM, after which it must exit 0 by itself.
 */
const example = join(import.meta.dirname, '..', '..', 'examples', 'otel-prometheus.ts');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

/** The samples of a Prometheus text exposition, as [name, labels, value]. */
function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });
}

describe('the Prometheus example, scraped over HTTP', () => {
  it('serves every instrument at /metrics with the throttler’s counts, and ends cleanly on SIGTERM', async () => {
    const running = spawn(process.execPath, ['--import', 'tsx', example], {
      env: { ...process.env, PORT: '0', LINGER_MS: '120000', NODE_NO_WARNINGS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = running;
    let stdout = '';
    let stderr = '';
    running.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => running.on('exit', (code) => resolve(code)));
    // Its line, as an event: the example prints it once its tasks are done and its server listens.
    const url = await new Promise<string>((resolve, reject) => {
      running.stdout?.on('data', (chunk) => {
        stdout += chunk;
        const found = /metrics at (http:\/\/\S+)\n/.exec(stdout);
        if (found) resolve(found[1] as string);
      });
      void exited.then((code) => reject(new Error(`exited ${code} before serving: ${stderr}`)));
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/# TYPE throttler_messages_total counter\n/);
    expect(text).toMatch(/# TYPE throttler_message_time_in_queue histogram\n/);
    expect(text).toMatch(/# TYPE throttler_window_utilization gauge\n/);
    const all = samples(text);
    const value = (name: string, labels: Record<string, string> = {}) => {
      const found = all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
      expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
      return found[0]?.value;
    };
    const api = { throttler_name: 'api', peer_service: 'example-api' };
    expect(value('throttler_messages_total', { ...api, throttler_result: 'delivered' })).toBe(8);
    // 3 tasks waited for the window, and the impatient one: 4 queued, 1 of them expired.
    expect(value('throttler_messages_total', { ...api, throttler_result: 'queued' })).toBe(4);
    expect(value('throttler_messages_total', { ...api, throttler_result: 'expired' })).toBe(1);
    expect(value('throttler_queued_messages', api)).toBe(0);
    expect(value('throttler_active_deliveries', api)).toBe(0);
    expect(value('throttler_message_time_in_queue_count', api)).toBe(3);
    expect(value('throttler_message_time_in_queue_bucket', { ...api, le: '+Inf' })).toBe(3);
    const utilization = value('throttler_window_utilization', { ...api, throttler_rate: '5/1s' }) as number;
    expect(utilization).toBeGreaterThanOrEqual(0);
    expect(utilization).toBeLessThanOrEqual(1);
    expect((await fetch(url.replace('/metrics', '/other'))).status).toBe(404);
    running.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  }, 120_000);
});
