/**
 * replayTimelines: a replay's decisions drawn a panel per configuration, side by side. Fed by a real
 * `compare` (xstate-throttler/replay) over a small recording, so what it draws is checked against the
 * replay's own report.
 */
import { describe, expect, it } from 'vitest';
import { ThrottlerOptionError } from '../../src/rate/index.js';
import { compare, type ReplayConfiguration } from '../../src/replay/index.js';
import { busiestWindows, replayTimelines } from '../../src/timeline/index.js';

/** Ten calls from one tenant at once, two from another, each giving up after 250 ms. */
function recording(): string[] {
  const header = { format: 'xstate-throttler-recording', version: 1, configuration: {}, clock: 'test', startedAt: 0 };
  const arrivals = [
    ...Array.from({ length: 10 }, () => ({ t: 0, channel: 'noisy', maxWait: 250 })),
    { t: 1, channel: 'quiet', maxWait: 250 },
    { t: 2, channel: 'quiet', cost: 2, maxWait: 250 },
  ];
  return [header, ...arrivals].map((line) => JSON.stringify(line));
}

const CONFIGURATIONS: ReplayConfiguration[] = [
  { name: 'one limit', rate: '4/100ms', strategy: 'sliding-window', keys: { rate: '4/100ms' } },
  { name: 'per key', rate: '4/100ms', strategy: 'sliding-window', keys: { rate: '2/100ms' }, ordering: 'per-channel' },
  { rate: '8/100ms', strategy: 'sliding-window', channels: { quiet: '1/100ms' }, keys: { rate: '8/100ms' } },
];

async function drawn() {
  const timelines = replayTimelines(CONFIGURATIONS);
  const { reports } = await compare(recording(), CONFIGURATIONS, { onDecision: timelines.onDecision });
  return { timelines, reports, panels: timelines.panels() };
}

describe('replayTimelines', () => {
  it("draws each configuration's deliveries and drops as its replay decided them", async () => {
    const { reports, panels } = await drawn();
    expect(panels.map((panel) => panel.title)).toEqual(['one limit', 'per key', '#3']);
    for (const [index, panel] of panels.entries()) {
      const report = reports[index];
      const delivered = panel.events.filter((event) => event.type === 'delivered');
      const dropped = panel.events.filter((event) => event.type === 'dropped');
      expect(delivered).toHaveLength(report?.delivered as number);
      const removed = (counts: Record<string, number> | undefined) =>
        Object.values(counts ?? {}).reduce((sum, count) => sum + count, 0);
      // A drop and a refusal are both drawn as dropped.
      expect(dropped).toHaveLength(removed(report?.dropped) + removed(report?.rejected));
      for (const event of delivered) expect(event.at).toBeGreaterThanOrEqual(event.queuedAt);
      // A drop is placed at the moment it was decided: its maxWait after its arrival.
      for (const event of dropped) {
        if (event.type === 'dropped' && event.reason === 'expired') expect(event.at).toBeGreaterThanOrEqual(250);
      }
    }
    // The third refuses the quiet tenant's call of cost 2 (its channel's limit is 1), as it comes, at 2 ms.
    expect(reports[2]?.rejected).toEqual({ invalid: 1 });
    expect(panels[2]?.events.find((event) => event.type === 'dropped')).toMatchObject({ at: 2 });
    // The recorded cost is drawn: the quiet tenant's second call costs 2 (with its own line, both go).
    const quietCosts = panels[1]?.events.flatMap((event) =>
      event.type === 'delivered' && event.channel === 'quiet' ? [event.cost] : [],
    );
    expect(quietCosts).toEqual([1, 2]);
    // Something was dropped where the limit per key binds, and nothing where it does not.
    expect(reports[1]?.dropped.expired).toBeGreaterThan(0);
  });

  it("measures each key's windows against keys.rate, and a configured channel against its own rate", async () => {
    const { panels } = await drawn();
    expect(panels[1]?.channels).toEqual({ noisy: '2/100ms', quiet: '2/100ms' });
    expect(panels[2]?.channels).toEqual({ noisy: '8/100ms', quiet: '1/100ms' });
    const windows = busiestWindows(panels[1] as Parameters<typeof busiestWindows>[0]);
    const noisy = windows.find((window) => window.channel === 'noisy');
    expect(noisy?.count).toBe(2);
    expect(noisy?.limit).toBe(2);
  });

  it('sets the panels side by side on one time scale, unless told otherwise', async () => {
    const { timelines } = await drawn();
    const columns = timelines.svg({ width: 480 });
    expect(columns.match(/class="panel"/g)).toHaveLength(3);
    expect(columns).toMatch(/^<svg [^>]*width="1476"/); // 3 × 480 + 2 gaps of 18
    expect(timelines.svg({ width: 480, layout: 'rows' })).toMatch(/^<svg [^>]*width="480"/);
  });

  it('refuses a wrong configuration list or index, by name', () => {
    expect(() => replayTimelines([])).toThrow(ThrottlerOptionError);
    expect(() => replayTimelines([])).toThrow(/configurations/);
    expect(() => replayTimelines(Array.from({ length: 13 }, () => ({})))).toThrow(/configurations/);
    const timelines = replayTimelines([{ rate: '1/1s' }]);
    expect(() => timelines.onDecision({ t: 0, at: 0, channel: undefined, sent: 0 }, 1)).toThrow(
      /configuration must be an index from 0 to 0, got 1/,
    );
  });
});
