import { describe, expect, it } from 'vitest';
import { compare, type RecordedArrival, replay } from '../../src/replay/index.js';
import { defineStrategy } from '../../src/strategies/index.js';

/** compare: one reading of a recording, one report per configuration, and the table of their differences. */

function recording(arrivals: readonly RecordedArrival[], configuration: object = { rate: '5/100ms' }): string[] {
  const header = {
    format: 'xstate-throttler-recording',
    version: 1,
    configuration,
    clock: 'performance.now',
    startedAt: 0,
  };
  return [JSON.stringify(header), ...arrivals.map((arrival) => JSON.stringify(arrival))];
}

/** A noisy tenant (20 at once, every 100 ms) beside two quiet ones, for a second. */
function noisyTenant(): RecordedArrival[] {
  const arrivals: RecordedArrival[] = [];
  for (let t = 0; t < 1000; t += 100) {
    for (let n = 0; n < 20; n++) arrivals.push({ t, channel: 'noisy', maxWait: 250 });
    arrivals.push({ t: t + 10, channel: 'quiet-a' }, { t: t + 20, channel: 'quiet-b' });
  }
  return arrivals;
}

describe('compare', () => {
  it('replays one reading of the recording through each configuration and tables the differences', async () => {
    let reads = 0;
    const lines = recording(noisyTenant());
    function* once() {
      reads++;
      yield* lines;
    }
    const { reports, table } = await compare(once(), [
      { name: 'overall only', rate: '10/100ms', strategy: 'sliding-window', keys: { rate: '100/100ms' } },
      {
        name: 'per tenant',
        rate: '10/100ms',
        strategy: 'sliding-window',
        keys: { rate: '6/100ms' },
        ordering: 'per-channel',
      },
    ]);
    expect(reads).toBe(1);
    const [overall, perTenant] = reports;
    for (const report of reports) {
      expect(report.arrivals).toBe(220);
      expect(report.windowsOver).toBe(0);
      expect(report.delivered + (report.dropped.expired ?? 0) + report.unfinished).toBe(220);
      expect(report.keys.map((key) => key.key).sort()).toEqual(['noisy', 'quiet-a', 'quiet-b']);
    }
    const quietWait = (report: typeof overall) => report?.keys.find((key) => key.key === 'quiet-a')?.waits.max;
    // Behind the noisy tenant's backlog, a quiet tenant waits; with a limit per tenant it goes at once.
    expect(quietWait(overall)).toBeGreaterThan(100);
    expect(quietWait(perTenant)).toBe(0);
    expect(perTenant?.rates.find((rate) => rate.scope === 'key' && rate.name === 'noisy')?.most).toBe(6);
    expect(table.split('\n')[0]).toBe('| | overall only | per tenant |');
    expect(table).toMatch(/\| dropped: expired \| \d+ \| \*\*\d+\*\* \|/);
    expect(table).toContain(`| busiest window of 10/100ms | 10 / 10 | **${perTenant?.rates[0]?.most} / 10** |`);
    expect(perTenant?.rates[0]?.most).toBeLessThan(10); // the noisy tenant held to 6 of the 10
  });

  it('frees a slot at the recorded run time, and pauses for a recorded 429 unless told to ignore it', async () => {
    const arrivals: RecordedArrival[] = [
      { t: 0, ran: 50, outcome: '429', retryAfter: 1000 },
      { t: 1, ran: 10 },
      { t: 100 },
    ];
    const sent = async (configuration: Parameters<typeof replay>[1]) => {
      const times: (number | undefined)[] = [];
      await replay(recording(arrivals), configuration, { onDecision: (decision) => times.push(decision.sent) });
      return times;
    };
    expect(await sent({ rate: '10/1s', maxConcurrent: 1 })).toEqual([0, 50, 1050]);
    expect(await sent({ rate: '10/1s', maxConcurrent: 1, serverAnswers: 'ignore' })).toEqual([0, 50, 100]);
    expect(await sent({ rate: '10/1s', serverAnswers: 'ignore' })).toEqual([0, 1, 100]);
  });

  it('replays as recorded without a configuration, and refuses a wrong one by name', async () => {
    const report = await replay(
      recording([{ t: 0 }, { t: 0 }, { t: 0 }], { rate: '2/1s', strategy: 'sliding-window' }),
    );
    expect(report).toMatchObject({ name: 'as recorded', delivered: 3, waits: { max: 1000 }, windowsOver: 0 });
    await expect(replay(recording([]), { rate: 'fast' })).rejects.toThrow(/rate/);
    await expect(replay(recording([]), { rate: '1/1s', serverAnswers: 'obey' as never })).rejects.toThrow(
      /serverAnswers/,
    );
    await expect(compare(recording([]), [])).rejects.toThrow(/configurations/);
    await expect(replay(recording([]), undefined, { sameInstant: 'all' as never })).rejects.toThrow(
      `sameInstant must be 'one-by-one' or 'batch', got "all"`,
    );
  });

  it('replays a strategy of your own with its value given; as recorded, names what to pass', async () => {
    const spaced = defineStrategy({
      name: 'spaced',
      createPolicy: () => {
        let next = 0;
        return { earliestDelivery: (now) => Math.max(now, next), recordDelivery: (at) => (next = at + 100) };
      },
    });
    const lines = recording([{ t: 0 }, { t: 0 }, { t: 0 }], { rate: '2/1s', strategy: 'spaced' });
    expect(await replay(lines, { rate: '2/1s', strategy: spaced })).toMatchObject({
      delivered: 3,
      waits: { max: 200 },
    });
    await expect(replay(lines)).rejects.toThrow(
      'strategy must be given as its value (defineStrategy): a recording holds only its name, got "spaced"',
    );
  });

  it("hands the arrivals of one instant over as one QUEUE_BATCH with sameInstant: 'batch', deciding as one by one for a sliding window and arrivals of one priority", async () => {
    const arrivals: RecordedArrival[] = [];
    for (let t = 0; t < 300; t += 50) for (let n = 0; n < 4; n++) arrivals.push({ t, channel: n % 2 ? 'a' : 'b' });
    const sentTimes = async (sameInstant: 'one-by-one' | 'batch') => {
      const sent: (number | undefined)[] = [];
      await replay(
        recording(arrivals),
        { rate: '3/100ms', keys: { rate: '2/100ms' } },
        {
          sameInstant,
          onDecision: (decision) => (sent[decision.arrival] = decision.sent),
        },
      );
      return sent;
    };
    const oneByOne = await sentTimes('one-by-one');
    expect(oneByOne.filter((at) => at === 0)).toHaveLength(3);
    expect(await sentTimes('batch')).toEqual(oneByOne);
  });

  it("decides otherwise with sameInstant: 'batch' when the queue is full: a message a drop lets go waits for the batch's end", async () => {
    // Found by a property (one by one against batch, random traffic without priorities). At 10 the queue holds
    // a1, c2, a3 (capacity 3); a4 displaces a1, which lets c2 go. One by one, c2 goes at 10 before a5 arrives;
    // in a batch it is sent only after the batch's last message, and a5 displaces it first.
    const arrivals: RecordedArrival[] = ['a', 'a', 'c', 'a', 'a', 'a'].map((channel, n) => ({
      t: n < 4 ? 0 : 10,
      channel,
    }));
    const configuration = {
      rate: '1/10ms',
      strategy: 'sliding-window',
      keys: { rate: '1/50ms' },
      capacity: 3,
      overflow: 'drop-oldest',
    } as const;
    const fateOfC = async (sameInstant: 'one-by-one' | 'batch') => {
      const fates: (number | string | undefined)[] = [];
      await replay(recording(arrivals), configuration, {
        sameInstant,
        onDecision: (decision) => (fates[decision.arrival] = decision.sent ?? decision.dropped),
      });
      return fates[2];
    };
    expect(await fateOfC('one-by-one')).toBe(10);
    expect(await fateOfC('batch')).toBe('drop-oldest');
  });
});
