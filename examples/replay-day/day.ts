// A day of an API's traffic, synthetic but shaped like a real one, made from a seed (the same seed, the same
// day, on any machine), and replayed through three configurations in virtual time: a day in a few seconds.
// examples/replay-a-day.ts runs it; test/examples/replay-day.test.ts holds docs/replay.md's table and
// docs/replay-day.svg to what it prints and draws.
import type { ReplayConfiguration } from '../../src/replay/index.js';
import { type Comparison, compare } from '../../src/replay/index.js';
import { replayTimelines } from '../../src/timeline/index.js';
import { seeded } from '../support/seeded-random.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One call to the API, as the recording's line holds it. */
interface Call {
  t: number;
  channel: string;
  maxWait?: number;
  ran: number;
}

/** Interactive tenants and their share of the daytime load. */
const TENANTS: ReadonlyArray<[name: string, share: number]> = [
  ['acme', 0.3],
  ['globex', 0.22],
  ['initech', 0.18],
  ['umbrella', 0.14],
  ['hooli', 0.1],
  ['stark', 0.06],
];
/** An interactive caller gives up after 10 s. */
const INTERACTIVE_WAIT = 10_000;

/** Calls per second at time t: a night's low at 04:00, a day's high at 16:00 (0.08 to 0.6 a second). */
function diurnal(t: number): number {
  return 0.06 + 0.54 * ((1 - Math.cos((2 * Math.PI * (t - 4 * HOUR)) / DAY)) / 2);
}

function pick(random: () => number): string {
  let left = random();
  for (const [name, share] of TENANTS) {
    left -= share;
    if (left < 0) return name;
  }
  return TENANTS[0]?.[0] ?? 'acme';
}

/** A call lasts 20 to 300 ms. */
const duration = (random: () => number) => Math.round(20 + random() * 280);

/** The day's steady load: a Poisson process whose rate follows the hour (thinning). */
function steady(random: () => number, calls: Call[]): void {
  const peak = 0.6 / 1000;
  for (let t = -Math.log(1 - random()) / peak; t < DAY; t += -Math.log(1 - random()) / peak) {
    if (random() * 0.6 > diurnal(t)) continue;
    calls.push({ t, channel: pick(random), maxWait: INTERACTIVE_WAIT, ran: duration(random) });
  }
}

/** Bursts: a dozen a day, in working hours, 20 to 60 calls within a second from one tenant. */
function bursts(random: () => number, calls: Call[]): void {
  for (let n = 0; n < 12; n++) {
    const start = 8 * HOUR + random() * 10 * HOUR;
    const channel = pick(random);
    const size = 20 + Math.floor(random() * 41);
    for (let k = 0; k < size; k++) {
      calls.push({ t: start + random() * 1000, channel, maxWait: INTERACTIVE_WAIT, ran: duration(random) });
    }
  }
}

/**
 * The noisy tenant: a nightly export at 02:00 (4 calls a second for 30 minutes) and two bulk syncs of 400
 * calls at once (11:00, 15:00), none of which gives up; and a little interactive traffic of its own.
 */
function noisy(random: () => number, calls: Call[]): void {
  for (let t = 2 * HOUR; t < 2 * HOUR + 30 * 60_000; t += 250) {
    calls.push({ t: t + random() * 50, channel: 'bulkco', ran: duration(random) });
  }
  for (const at of [11 * HOUR, 15 * HOUR]) {
    for (let k = 0; k < 400; k++) calls.push({ t: at + k * 0.5, channel: 'bulkco', ran: duration(random) });
  }
  for (let t = 7 * HOUR; t < 20 * HOUR; t += 60_000 + random() * 60_000) {
    calls.push({ t, channel: 'bulkco', maxWait: INTERACTIVE_WAIT, ran: duration(random) });
  }
}

/** The day's calls, in arrival order, times to the microsecond. */
export function dayOfCalls(seed = 37): Call[] {
  const random = seeded(seed);
  const calls: Call[] = [];
  steady(random, calls);
  bursts(random, calls);
  noisy(random, calls);
  for (const call of calls) call.t = Math.round(call.t * 1000) / 1000;
  return calls.sort((a, b) => a.t - b.t);
}

/** The day as a recording's lines (a header, then a line per call), made as they are read. */
export function* dayRecording(calls: readonly Call[]): Generator<string> {
  yield JSON.stringify({
    format: 'xstate-throttler-recording',
    version: 1,
    configuration: CONFIGURATIONS[0],
    clock: `synthetic (examples/replay-day/day.ts)`,
    startedAt: 0,
  });
  for (const call of calls) yield JSON.stringify(call);
}

/**
 * Three answers to "3 calls a second for everyone": one line, a limit per tenant, a fair share. Each tenant is
 * a key (its channel); a key's limit of 3/1s is the overall one, so it binds nothing by itself.
 */
export const CONFIGURATIONS: ReplayConfiguration[] = [
  { name: 'one limit', rate: '3/1s', strategy: 'sliding-window', keys: { rate: '3/1s' } },
  {
    name: 'per tenant',
    rate: '3/1s',
    strategy: 'sliding-window',
    keys: { rate: '1/1s' },
    ordering: 'per-channel',
  },
  { name: 'fair share', rate: '3/1s', strategy: 'sliding-window', keys: { rate: '3/1s' }, fairness: 'weighted' },
];

export interface ReplayedDay extends Comparison {
  arrivals: number;
  /** The three timelines side by side. */
  svg: string;
}

/** The day replayed through the three configurations, read once, and its timelines. */
export async function replayDay(seed = 37): Promise<ReplayedDay> {
  const calls = dayOfCalls(seed);
  const timelines = replayTimelines(CONFIGURATIONS);
  const comparison = await compare(dayRecording(calls), CONFIGURATIONS, { onDecision: timelines.onDecision });
  return { ...comparison, arrivals: calls.length, svg: timelines.svg({ width: 640 }) };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Per tenant and configuration: the p99 and the longest wait (s), and how many gave up (expired). */
export function tenantTable(reports: Comparison['reports']): string {
  const names = [...TENANTS.map(([name]) => name), 'bulkco'];
  const rows = [
    `| tenant: wait p99 / max (s), expired | ${reports.map((report) => report.name).join(' | ')} |`,
    `| --- | ${reports.map(() => '---:').join(' | ')} |`,
  ];
  for (const name of names) {
    const cells = reports.map((report) => {
      const key = report.keys.find((each) => each.key === name);
      if (key === undefined) return '-';
      return `${seconds(key.waits.p99)} / ${seconds(key.waits.max)}, ${key.dropped.expired ?? 0}`;
    });
    rows.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  return `${rows.join('\n')}\n`;
}

/** What docs/replay.md shows between its markers: both tables, as the example prints them. */
export function docsTables(day: ReplayedDay): string {
  return `${day.table}\n${tenantTable(day.reports)}`;
}
