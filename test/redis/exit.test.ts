import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * After close(), nothing the store made (subscriber, timers) keeps a process alive. Real time; the bounds
 * are hang guards sized for a busy two-core machine, never a measure.
 */
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

/**
 * For the controls: runs a fixture until it has printed `ready` (the point where it would exit if nothing
 * held it), then gives it `graceMs` more before ending it with SIGTERM. Timed from that line, not from the
 * start, so a slow start on a busy machine (tsx alone took over 6 s at load 8) cannot end it too early.
 */
function runPastLine(
  fixture: string,
  ready: RegExp,
  graceMs: number,
  ...args: string[]
): Promise<{ code: number | string; stdout: string }> {
  const script = join(import.meta.dirname, '..', 'fixtures', fixture);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let grace: NodeJS.Timeout | undefined;
    // A hang guard only: a fixture that never prints its line fails the test with what it printed.
    const guard = setTimeout(() => child.kill('SIGTERM'), 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (grace === undefined && ready.test(stdout)) grace = setTimeout(() => child.kill('SIGTERM'), graceMs);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      clearTimeout(grace);
      resolve({ code: signal ?? code ?? 1, stdout });
    });
  });
}

describe('a process using the Redis store', () => {
  it('exits by itself after store.close() and redis.quit()', async () => {
    const { code, stdout, stderr } = await runFixture(90_000);
    expect(stdout, stderr).toMatch(/reserved granted,granted,later; heard paused/);
    expect(stdout).toMatch(/exited after \d+ ms/);
    expect(code).toBe(0);
  }, 150_000);

  it('control: without store.close() the subscriber keeps it alive (so the test above can fail)', async () => {
    const { code, stdout } = await runPastLine('redis-store-exit.ts', /heard paused/, 3_000, 'leave-open');
    expect(stdout).toMatch(/heard paused/);
    expect(stdout).not.toMatch(/exited after/);
    expect(code).toBe('SIGTERM');
  }, 150_000);
});

describe('a process using a throttler with the Redis store', () => {
  it('exits by itself after stop(), store.close() and redis.quit(), with a message still waiting', async () => {
    const { code, stdout, stderr } = await runScript('redis-throttler-exit.ts', 90_000);
    expect(stdout, stderr).toMatch(/delivered 2; waiting 1/);
    expect(stdout).toMatch(/exited after \d+ ms/);
    expect(code).toBe(0);
  }, 150_000);

  it('control: a throttler left running keeps it alive (so the test above can fail)', async () => {
    const { code, stdout } = await runPastLine(
      'redis-throttler-exit.ts',
      /delivered 2; waiting 1/,
      3_000,
      'leave-running',
    );
    expect(stdout).toMatch(/delivered 2; waiting 1/);
    expect(stdout).not.toMatch(/exited after/);
    expect(code).toBe('SIGTERM');
  }, 150_000);
});
