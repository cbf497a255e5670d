import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerOptionError } from '../../src/index.js';
import { type ServerLimitsSource, serverLimits } from '../../src/server-limits/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/** The promise API's serverLimits option and setRate per key and template (issue 14), in virtual time. */
beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('createThrottler: serverLimits', () => {
  it("pauses on a 429's Retry-After before the next task may start, and follows a stated policy", async () => {
    // One task at a time (a pass starts every task the rate allows at once, before any answer is back).
    const throttler = createThrottler({
      rate: '1/100ms',
      strategy: 'sliding-window',
      serverLimits: serverLimits((answer: { status: number; headers: Record<string, string> }) => answer, {
        now: () => 1_700_000_000_000 + now(),
      }),
    });
    const starts: number[] = [];
    const answers = [
      { status: 200, headers: {} },
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 200, headers: {} },
      { status: 200, headers: { 'ratelimit-policy': '"default";q=2;w=1' } },
      { status: 200, headers: {} },
      { status: 200, headers: {} },
    ];
    const tasks = answers.map((answer) =>
      throttler.schedule(() => {
        starts.push(now());
        // The first two answer together; the rest come later, each after its own start.
        return answer;
      }),
    );
    await advance(10_000);
    await Promise.all(tasks);
    // 100 ms apart until the 429 at 100 pauses for 2 s; the fourth states 2 per second (a SET_RATE that
    // keeps the configured 1/100ms beside it: a server lowers the rates, never raises them), so the
    // fifth goes 100 ms after it and the sixth a second after the fourth.
    expect(starts).toEqual([0, 100, 2_100, 2_200, 2_300, 3_200]);
    throttler.stop();
  });

  it('hears a task that threw too (a client that throws on a 429), and still rejects it', async () => {
    const heard: unknown[] = [];
    const throttler = createThrottler({
      rate: '1/100ms',
      strategy: 'sliding-window',
      serverLimits: serverLimits((value: unknown, error: unknown) => {
        heard.push(error ?? value);
        return (error as { response?: ServerLimitsSource } | undefined)?.response;
      }),
    });
    const refusal = Object.assign(new Error('HTTP 429'), {
      response: { status: 429, headers: { 'retry-after': '3' } },
    });
    const failed = throttler.schedule(() => Promise.reject(refusal));
    const next = throttler.schedule(() => now());
    await expect(failed).rejects.toBe(refusal);
    await advance(5_000);
    await expect(next).resolves.toBeGreaterThanOrEqual(3_000);
    expect(heard).toEqual([refusal, expect.any(Number)]);
    throttler.stop();
  });

  it('reports an answer it could not apply to onError, and the task still resolves', async () => {
    const errors: Error[] = [];
    const throttler = createThrottler({
      rate: '10/1s',
      serverLimits: serverLimits(
        () => {
          throw new Error('pick is broken');
        },
        { onError: (error) => errors.push(error) },
      ),
    });
    await expect(throttler.schedule(() => 'fine')).resolves.toBe('fine');
    expect(errors.map((error) => error.message)).toEqual(['pick is broken']);
    throttler.stop();
  });

  it('refuses a bad serverLimits option by name', () => {
    expect(() => createThrottler({ rate: '1/1s', serverLimits: (() => {}) as never })).toThrow(
      /^serverLimits must be what serverLimits\(\.\.\.\)/,
    );
    expect(() => serverLimits(undefined, { status: 99 })).toThrow(ThrottlerOptionError);
    expect(() => serverLimits(undefined, { onError: 'log' as never })).toThrow(/^onError must be a function/);
  });
});

describe('createThrottler: setRate per key and for the keys template', () => {
  it("sets one key's rate and the template's, and refuses what the options cannot have", async () => {
    const throttler = createThrottler({ rate: '100/1s', strategy: 'sliding-window', keys: { rate: '1/1s' } });
    const starts: Array<[string, number]> = [];
    const run = (key: string) => throttler.schedule(() => starts.push([key, now()]), { channel: key });
    throttler.setRate('2/1s', 'alice');
    await Promise.all([run('alice'), run('alice'), run('bob')]);
    throttler.setRate('3/1s', { keyTemplate: true });
    await Promise.all([run('carol'), run('carol'), run('carol')]);
    expect(starts).toEqual([
      ['alice', 0],
      ['alice', 0],
      ['bob', 0],
      ['carol', 0],
      ['carol', 0],
      ['carol', 0],
    ]);
    expect(() => throttler.setRate('0/1s', 'alice')).toThrow(/^channels\.alice/);
    expect(() => throttler.setRate('1/1s', '')).toThrow(/^channel must be/);
    expect(() => throttler.setRate('1/1s', { keyTemplate: 'yes' } as never)).toThrow(/^keyTemplate must be/);
    throttler.stop();
    const plain = createThrottler({ rate: '1/1s', channels: { a: '1/1s' } });
    expect(() => plain.setRate('1/1s', { keyTemplate: true })).toThrow(/^keyTemplate must be set only with the keys/);
    expect(() => plain.setRate('1/1s', 'alice')).toThrow(/^channel must be one of "a"/);
    plain.stop();
  });
});
