import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * After stop(), no timer of the promise API holds a process open: a hung task's timeout is released
 * (it still fires if the process lives on), a retry's backoff is cleared. Real time in a process of its
 * own; the bounds are hang guards sized for a busy two-core machine, never a measure.
 */
function runFixture(...args: string[]): Promise<{ code: number | string; stdout: string }> {
  const script = join(import.meta.dirname, '..', 'fixtures', 'promise-stop-exit.ts');
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { timeout: 50_000 }, (error, stdout) =>
      resolve({
        code: error
          ? ((error as { code?: number; signal?: string }).signal ?? (error as { code?: number }).code ?? 1)
          : 0,
        stdout,
      }),
    );
  });
}

describe('createThrottler: after stop() the process exits', () => {
  it("with a hung task's timeout of a minute and a retry's backoff of a minute", async () => {
    const { code, stdout } = await runFixture();
    expect(stdout).toContain('running 1, waiting 1; stopping');
    expect(stdout).toContain('retried task: ThrottlerStoppedError');
    const exited = /exited after (\d+) ms/.exec(stdout);
    expect(code).toBe(0);
    // Before: alive until the timeout, a minute (the guard ends it at 50 s). Generous: a busy machine.
    expect(Number(exited?.[1])).toBeLessThan(30_000);
  });

  it("a hung task's timeout still rejects it after stop() while the process lives on", async () => {
    const { code, stdout } = await runFixture('keep');
    expect(stdout).toMatch(/hung task: ThrottlerTimeoutError after \d+ ms/);
    expect(code).toBe(0);
  });
});
