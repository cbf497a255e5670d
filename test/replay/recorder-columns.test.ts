/**
 * recordThrottler keeps each arrival as numbers in typed arrays, in chunks of 4,096, and formats its line
 * later (src/replay/arrival-columns.ts): the lines must be what the object recorder wrote, in arrival order,
 * across chunks, for fields the columns hold and for those they do not (kept as objects).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { arrivalLine } from '../../src/replay/format.js';
import { type RecordedArrival, type RecordingSink, readRecording, recordThrottler } from '../../src/replay/index.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

async function arrivalsOf(text: string): Promise<RecordedArrival[]> {
  const arrivals: RecordedArrival[] = [];
  for await (const item of readRecording(text)) if (item.kind === 'arrival') arrivals.push(item.arrival);
  return arrivals;
}

describe('recordThrottler over typed arrays', () => {
  it('writes 10,000 arrivals across three chunks in arrival order, each with its fields', async () => {
    useVirtualTime();
    const configuration = { rate: '100000/1s', strategy: 'sliding-window', keys: { rate: '100000/1s' } } as const;
    const throttler = createThrottler(configuration);
    let text = '';
    const recording = recordThrottler(throttler, { to: (line) => (text += line), configuration, process: 'web "1"' });
    const tasks: Promise<unknown>[] = [];
    for (let n = 0; n < 10_000; n++) {
      const options =
        n % 3 === 0 ? undefined : { channel: `k${n % 7}`, priority: n % 10, maxWait: 1000, cost: 1 + (n % 2) };
      tasks.push(recording.schedule(() => n, options));
      if (n % 1000 === 999) await vi.advanceTimersByTimeAsync(1);
    }
    await vi.advanceTimersByTimeAsync(10);
    expect(await Promise.all(tasks)).toEqual(Array.from({ length: 10_000 }, (_, n) => n));
    recording.close();
    throttler.stop();
    const arrivals = await arrivalsOf(text);
    expect(arrivals).toHaveLength(10_000);
    // Each line exactly as the object recorder's arrivalLine writes the same arrival.
    const lines = text.trim().split('\n').slice(1);
    expect(lines).toEqual(arrivals.map((arrival) => arrivalLine(arrival)));
    expect(recording.arrivals).toBe(10_000);
    for (const [n, arrival] of arrivals.entries()) {
      const t = Math.floor(n / 1000);
      const fields = n % 3 === 0 ? {} : { channel: `k${n % 7}`, priority: n % 10, maxWait: 1000, cost: 1 + (n % 2) };
      expect(arrival).toEqual({ t, ...fields, process: 'web "1"', sent: t, ran: 0, outcome: 'ok' });
    }
  });

  it('keeps as objects the fields the columns cannot hold: a cost map, a duration as text, a priority out of range', async () => {
    useVirtualTime();
    const configuration = { rate: { requests: '100/1s', tokens: '1000/1s' }, strategy: 'sliding-window' } as const;
    const throttler = createThrottler(configuration);
    let text = '';
    const recording = recordThrottler(throttler, { to: (line) => (text += line), configuration, process: 'web-1' });
    const cost = { requests: 1, tokens: 300 };
    const done = [
      recording.schedule(() => 'a', { cost }),
      recording.schedule(() => 'b', { maxWait: '2s' }),
      recording.schedule(() => 'c', { priority: 12 }).catch((error: Error) => error.name),
      recording.schedule(() => 'd', { channel: undefined, deadline: Number.NaN }).catch((error: Error) => error.name),
    ];
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all(done);
    recording.close();
    throttler.stop();
    const lines = text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { t: 0, cost, process: 'web-1', sent: 0, ran: 0, outcome: 'ok' },
      { t: 0, maxWait: 2000, process: 'web-1', sent: 0, ran: 0, outcome: 'ok' },
      { t: 0, priority: 12, process: 'web-1', rejected: 'invalid' },
      { t: 0, process: 'web-1', rejected: 'invalid' }, // a deadline that is no time: refused, and not recorded
    ]);
  });

  it('writes an arrival by the microtask after its task ends, and the oldest held once maxPending are held', async () => {
    const configuration = { rate: '100/1s', strategy: 'sliding-window' } as const;
    const throttler = createThrottler(configuration);
    const lines: string[] = [];
    const recording = recordThrottler(throttler, { to: (line) => lines.push(line), configuration, maxPending: 2 });
    await recording.schedule(() => 'done');
    expect(lines).toHaveLength(2); // the header and the task's line
    let finish: (value: string) => void = () => undefined;
    const never = recording.schedule(() => new Promise<string>((resolve) => (finish = resolve)));
    recording.schedule(() => new Promise(() => undefined));
    expect(lines).toHaveLength(2); // two held: within maxPending
    recording.schedule(() => new Promise(() => undefined));
    expect(lines).toHaveLength(3); // a third: the oldest held is written as it stands, started and not ended
    expect(JSON.parse(lines[2] as string)).toEqual({ t: expect.any(Number), sent: expect.any(Number) });
    finish('late');
    await never;
    recording.close();
    throttler.stop();
    expect(lines).toHaveLength(5); // its end came after it was written: ignored; close writes the two held
  });

  it('times a task started inside its own schedule call at its arrival, one scheduled inside it at its own', async () => {
    useVirtualTime();
    const configuration = { rate: '2/1s', strategy: 'sliding-window' } as const;
    const throttler = createThrottler(configuration);
    let text = '';
    const recording = recordThrottler(throttler, { to: (line) => (text += line), configuration });
    await vi.advanceTimersByTimeAsync(5);
    const inner: Promise<unknown>[] = [];
    const outer = recording.schedule(() => {
      vi.advanceTimersByTime(3); // the task runs 3 ms, then schedules two more: they start after it, the second
      // when the window lets it
      inner.push(
        recording.schedule(() => 'first inner'),
        recording.schedule(() => 'second inner'),
      );
      vi.advanceTimersByTime(2);
      return 'outer';
    });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await Promise.all([outer, ...inner])).toEqual(['outer', 'first inner', 'second inner']);
    recording.close();
    throttler.stop();
    const arrivals = await arrivalsOf(text);
    expect(arrivals).toEqual([
      { t: 5, sent: 5, ran: 5, outcome: 'ok' },
      { t: 8, sent: 10, ran: 0, outcome: 'ok' },
      { t: 8, sent: 1010, ran: 0, outcome: 'ok' },
    ]);
  });

  it('hands a writable the lines at hand as one text of about 64 KiB, the same text a function gets line by line', async () => {
    useVirtualTime();
    const configuration = { rate: '100000/1s', strategy: 'sliding-window', keys: { rate: '100000/1s' } } as const;
    const record = async (to: RecordingSink) => {
      const throttler = createThrottler(configuration);
      const recording = recordThrottler(throttler, { to, configuration });
      const tasks: Promise<unknown>[] = [];
      for (let n = 0; n < 5000; n++)
        tasks.push(recording.schedule(() => n, n % 2 === 0 ? undefined : { channel: 'k' }));
      await vi.advanceTimersByTimeAsync(10);
      await Promise.all(tasks);
      recording.close();
      throttler.stop();
    };
    const lines: string[] = [];
    await record((line) => {
      lines.push(line);
    });
    const writes: string[] = [];
    await record({ write: (text: string) => writes.push(text) });
    const header = (text: string) => text.replace(/"startedAt":.*"wallClock":"[^"]*"/, '');
    expect(header(writes.join(''))).toBe(header(lines.join('')));
    expect(lines).toHaveLength(5001);
    expect(writes.length).toBeLessThan(10);
    // Written once it holds 64 KiB: at most that and one line.
    for (const text of writes) expect(text.length).toBeLessThan((1 << 16) + 100);
  });
});
