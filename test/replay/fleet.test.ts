import { describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/index.js';
import {
  mergeRecordings,
  type RecordedArrival,
  readRecording,
  recordThrottler,
  replay,
} from '../../src/replay/index.js';
import { createMemoryStore } from '../../src/store/index.js';

/**
 * A fleet's recording (each line carrying its process) replayed as one fleet: a throttler per process over
 * one memory store on the replay's clock, the same report with each process's share.
 */

function recording(arrivals: readonly RecordedArrival[]): string[] {
  const header = {
    format: 'xstate-throttler-recording',
    version: 1,
    configuration: { rate: '2/100ms', strategy: 'sliding-window' },
    clock: 'Date.now',
    startedAt: 0,
  };
  return [JSON.stringify(header), ...arrivals.map((arrival) => JSON.stringify(arrival))];
}

describe('a fleet replay', () => {
  it('holds the whole fleet to the shared limit, and reports each process', async () => {
    const arrivals: RecordedArrival[] = [];
    for (let n = 0; n < 10; n++) arrivals.push({ t: n * 10, process: n % 2 === 0 ? 'web-1' : 'web-2' });
    const sent: [string | undefined, number | undefined][] = [];
    const fleet = (clock: () => number) => createMemoryStore({ name: 'fleet', clock });
    const processOf = (arrival: number) => arrivals[arrival]?.process;
    const report = await replay(
      recording(arrivals),
      { rate: '2/100ms', fleet },
      {
        onDecision: (decision) => sent.push([processOf(decision.arrival), decision.sent]),
      },
    );
    expect(report.arrivals).toBe(10);
    expect(report.delivered).toBe(10);
    expect(report.processes?.map((each) => [each.key, each.arrivals, each.delivered])).toEqual([
      ['web-1', 5, 5],
      ['web-2', 5, 5],
    ]);
    // Two per 100 ms for the fleet as a whole (each process alone would have sent its 5 within 40 ms).
    const times = sent.map(([, at]) => at as number).sort((a, b) => a - b);
    for (let at = 2; at < times.length; at++)
      expect((times[at] as number) - (times[at - 2] as number)).toBeGreaterThanOrEqual(100);
    expect(report.windowsOver).toBe(0);
    expect(report.rates.find((rate) => rate.scope === 'overall')?.most).toBe(2);
    // Without the fleet, one throttler for every line: the same limit, no process of its own.
    const single = await replay(recording(arrivals), { rate: '2/100ms' });
    expect(single.processes).toBeUndefined();
  });

  it('refuses a fleet that is not a store maker, by name', async () => {
    await expect(replay(recording([{ t: 0 }]), { rate: '1/1s', fleet: 'redis' as never })).rejects.toThrow(
      /fleet must be a function \(clock\) => store/,
    );
  });
});

describe('mergeRecordings', () => {
  const made = (startedAt: number, process: string | undefined, times: number[], clock = 'Date.now') => [
    JSON.stringify({
      format: 'xstate-throttler-recording',
      version: 1,
      configuration: { rate: '2/100ms' },
      clock,
      startedAt,
    }),
    ...times.map((t) => JSON.stringify({ t, ...(process === undefined ? {} : { process }), sent: t + 1 })),
  ];

  it('merges recordings made on one clock in arrival order, each arrival with its process, and replays them as a fleet', async () => {
    const lines: string[] = [];
    for await (const line of mergeRecordings([made(1000, 'api-1', [0, 30, 60]), made(1010, undefined, [0, 5, 50])]))
      lines.push(line);
    const items = [];
    for await (const item of readRecording(lines)) items.push(item);
    expect(items[0]).toMatchObject({ kind: 'header', header: { startedAt: 1000, configuration: { rate: '2/100ms' } } });
    expect(
      items
        .slice(1)
        .map((item) => item.kind === 'arrival' && [item.arrival.t, item.arrival.process, item.arrival.sent]),
    ).toEqual([
      [0, 'api-1', 1],
      [10, '2', 11],
      [15, '2', 16],
      [30, 'api-1', 31],
      [60, 'api-1', 61],
      [60, '2', 61],
    ]);
    const fleet = (clock: () => number) => createMemoryStore({ name: 'merged', clock });
    const report = await replay(
      mergeRecordings([made(1000, 'api-1', [0, 30, 60]), made(1010, undefined, [0, 5, 50])]),
      {
        rate: '2/100ms',
        fleet,
      },
    );
    expect(report.processes?.map((each) => each.key)).toEqual(['api-1', '2']);
    expect(report.delivered).toBe(6);
    expect(report.windowsOver).toBe(0);
    // The fleet's 6 arrivals at 2 per 100 ms: the last waits for the third window.
    expect(report.waits.max).toBeGreaterThanOrEqual(200 - 60);
  });

  it('refuses recordings timed on different clocks, naming the one that differs', async () => {
    const merging = mergeRecordings([made(0, 'a', [0]), made(0, 'b', [0], 'performance.now')]);
    await expect(merging.next()).rejects.toThrow(
      /recording 2 of the merge was timed on "performance.now", recording 1 on "Date.now"/,
    );
  });
});

describe("a recorder's process", () => {
  it('is written on every line, and an empty one is refused by name', async () => {
    const configuration = { rate: '10/1s' } as const;
    const throttler = createThrottler(configuration);
    let text = '';
    const recording = recordThrottler(throttler, { to: (line) => (text += line), configuration, process: 'web-1' });
    expect(await recording.schedule(() => 7)).toBe(7);
    recording.close();
    expect(() => recordThrottler(throttler, { to: () => undefined, configuration, process: '' })).toThrow(
      /process must be a non-empty string .*got ""/,
    );
    throttler.stop();
    const [, line] = text.trim().split('\n');
    expect(JSON.parse(line as string)).toMatchObject({ t: expect.any(Number), process: 'web-1', outcome: 'ok' });
  });
});
