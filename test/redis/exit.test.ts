import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** After close(), nothing the store made (subscriber, timers) keeps a process alive. Real time, generous bounds. */
function runFixture(
  timeout: number,
  ...args: string[]
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return runScript('redis-store-exit.ts', timeout, ...args);
}

function runScript(
  fixture: string,
  timeout: number,
  ...args: string[]
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const script = join(import.meta.dirname, '..', 'fixtures', fixture);
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { timeout }, (error, stdout, stderr) =>
      resolve({
        code: error
          ? ((error as { code?: number; signal?: string }).signal ?? (error as { code?: number }).code ?? 1)
          : 0,
        stdout,
        stderr,
      }),
    );
  });
}

describe('a process using the Redis store', () => {
  it('exits by itself after store.close() and redis.quit()', async () => {
    const { code, stdout, stderr } = await runFixture(15_000);
    expect(stdout, stderr).toMatch(/reserved granted,granted,later; heard paused/);
    expect(stdout).toMatch(/exited after \d+ ms/);
    expect(code).toBe(0);
  });

  it('control: without store.close() the subscriber keeps it alive (so the test above can fail)', async () => {
    const { code, stdout } = await runFixture(5_000, 'leave-open');
    expect(stdout).toMatch(/heard paused/);
    expect(stdout).not.toMatch(/exited after/);
    expect(code).toBe('SIGTERM');
  });
});

describe('a process using a throttler with the Redis store', () => {
  it('exits by itself after stop(), store.close() and redis.quit(), with a message still waiting', async () => {
    const { code, stdout, stderr } = await runScript('redis-throttler-exit.ts', 15_000);
    expect(stdout, stderr).toMatch(/delivered 2; waiting 1/);
    expect(stdout).toMatch(/exited after \d+ ms/);
    expect(code).toBe(0);
  });

  it('control: a throttler left running keeps it alive (so the test above can fail)', async () => {
    const { code, stdout } = await runScript('redis-throttler-exit.ts', 6_000, 'leave-running');
    expect(stdout).toMatch(/delivered 2; waiting 1/);
    expect(stdout).not.toMatch(/exited after/);
    expect(code).toBe('SIGTERM');
  });
});
