import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { createThrottler, ThrottlerOptionError, throttlerMachine } from '../../src/index.js';
import { type RecordedArrival, readRecording, recordActor, recordThrottler } from '../../src/replay/index.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/** What the recorders write, in virtual time: each arrival's fate, run time and outcome, in arrival order. */

async function arrivalsOf(text: string): Promise<RecordedArrival[]> {
  const arrivals: RecordedArrival[] = [];
  for await (const item of readRecording(text)) if (item.kind === 'arrival') arrivals.push(item.arrival);
  return arrivals;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('recordThrottler', () => {
  afterEach(restoreRealTime);

  it('writes each task once it ended or was dropped: its start, run time, and ok, error or 429 with its Retry-After', async () => {
    useVirtualTime();
    vi.advanceTimersByTime(1000); // the recording counts from its start, not from the clock's zero
    const configuration = { rate: '1/100ms', strategy: 'sliding-window' } as const;
    const throttler = createThrottler(configuration);
    let text = '';
    const recording = recordThrottler(throttler, { to: (line) => (text += line), configuration });
    const answer429 = { status: 429, headers: new Headers({ 'retry-after': '2' }) };
    const tasks = [
      recording.schedule(
        async () => {
          await sleep(30);
          return answer429;
        },
        { channel: undefined },
      ),
      recording.schedule(async () => {
        await sleep(10);
        throw new Error('boom');
      }),
      recording.schedule(() => 'ok', { priority: 9 }),
      recording.schedule(() => 'late', { maxWait: 50 }),
    ].map((task) => task.catch((error: Error) => error.name));
    await vi.advanceTimersByTimeAsync(1000);
    expect(await Promise.all(tasks)).toEqual([answer429, 'Error', 'ok', 'ThrottlerExpiredError']);
    expect(recording.arrivals).toBe(4);
    recording.close();
    throttler.stop();
    expect(await arrivalsOf(text)).toEqual([
      { t: 0, sent: 0, ran: 30, outcome: '429', retryAfter: 2000 },
      { t: 0, sent: 200, ran: 10, outcome: 'error' },
      { t: 0, priority: 9, sent: 100, ran: 0, outcome: 'ok' },
      { t: 0, maxWait: 50, dropped: 'expired' },
    ]);
    expect(JSON.parse(text.split('\n')[0] as string)).toMatchObject({ configuration, startedAt: 1000, version: 1 });
  });

  it('refuses wrong options by name', () => {
    const throttler = createThrottler({ rate: '1/1s' });
    const attempt = (options: object) => () => recordThrottler(throttler, options as never);
    expect(attempt({ to: 5, configuration: {} })).toThrow(ThrottlerOptionError);
    expect(attempt({ to: 5, configuration: {} })).toThrow(/^to must be/);
    expect(attempt({ to: () => undefined })).toThrow(/^configuration must be/);
    expect(attempt({ to: () => undefined, configuration: {}, maxPending: 0 })).toThrow(/^maxPending must be/);
    expect(attempt({ to: () => undefined, configuration: {}, outcome: 'yes' })).toThrow(/^outcome must be/);
    expect(() => recordThrottler({} as never, { to: () => undefined, configuration: {} })).toThrow(
      /^throttler must be/,
    );
    throttler.stop();
  });
});

describe('recordActor', () => {
  afterEach(restoreRealTime);

  function started() {
    useVirtualTime();
    const target = createActor(fromCallback(() => undefined)).start();
    const configuration = { rate: '1/100ms', strategy: 'sliding-window', capacity: 2 } as const;
    const actor = createActor(throttlerMachine, { input: { ...configuration, target } });
    return { actor, configuration };
  }

  it('holds a delivered arrival until finished() tells its end (awaitEnds), and writes in arrival order', async () => {
    const { actor, configuration } = started();
    const lines: string[] = [];
    const recording = recordActor(actor, { to: (line) => lines.push(line), configuration, awaitEnds: true });
    actor.start();
    const first = { type: 'job', n: 1 };
    const second = { type: 'job', n: 2 };
    actor.send({
      type: 'QUEUE_BATCH',
      messages: [
        { message: first, channel: undefined },
        { message: second, cost: 1 },
      ],
    });
    actor.send({ type: 'QUEUE', message: { type: 'job', n: 3 } });
    actor.send({ type: 'QUEUE', message: { type: 'job', n: 4 } }); // over capacity 2: refused
    advance(100);
    expect(lines).toHaveLength(1); // the header: the first waits for its end, the rest behind it
    advance(30);
    recording.finished(first, { outcome: '429', retryAfter: 500 });
    recording.finished(second, { outcome: 'ok' });
    advance(100);
    recording.close();
    actor.stop();
    expect(await arrivalsOf(lines.join(''))).toEqual([
      { t: 0, sent: 0, ran: 130, outcome: '429', retryAfter: 500 },
      { t: 0, cost: 1, sent: 100, ran: 30, outcome: 'ok' },
      { t: 0, sent: 200 },
      { t: 0, rejected: 'overflow' },
    ]);
  });

  it('writes the oldest held arrival as it stands once maxPending are held', async () => {
    const { actor, configuration } = started();
    let text = '';
    const recording = recordActor(actor, {
      to: (line) => (text += line),
      configuration,
      awaitEnds: true,
      maxPending: 1,
    });
    actor.start();
    actor.send({ type: 'QUEUE', message: { type: 'job', n: 1 } });
    actor.send({ type: 'QUEUE', message: { type: 'job', n: 2 } });
    expect(await arrivalsOf(text)).toEqual([{ t: 0, sent: 0 }]);
    recording.close();
    actor.stop();
  });
});
