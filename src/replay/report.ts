/**
 * What a replay reports, counted as it goes in memory bounded by the keys (one tally each), never by the
 * arrivals: deliveries, drops and refusals by reason, waits (wait-summary.ts), throughput.
 */
import type { RateAudit } from '../machine/index.js';
import { WaitHistogram, type WaitSummary } from './wait-summary.js';

/** What happened to a set of arrivals (all of them, or one key's). */
export interface TrafficSummary {
  arrivals: number;
  delivered: number;
  /** Waiting arrivals taken out undelivered, by reason (`expired`, `drop-oldest`, ...). */
  dropped: Record<string, number>;
  /** Arrivals refused as they came, by reason (`overflow`, `invalid`). */
  rejected: Record<string, number>;
  /** Each delivered arrival's wait, from its arrival to its delivery, ms. */
  waits: WaitSummary;
  /** Deliveries per second, from the first arrival to the last delivery (0 when they are at one instant). */
  throughput: number;
}

/** One channel's or key's share; `key` undefined: the arrivals without one. */
export interface KeyReport extends TrafficSummary {
  key: string | undefined;
}

/** One configuration's replay of a recording. */
export interface ReplayReport extends TrafficSummary {
  /** The configuration's `name`, or `'as recorded'`, or its place in `compare` (`'#2'`). */
  name: string;
  /** The configuration replayed, as JSON holds it. */
  configuration: Record<string, unknown>;
  /** Arrivals still waiting when every timer had fired (a pause without end, a target never free). */
  unfinished: number;
  keys: KeyReport[];
  /** With `fleet`: each process's share (`key`: the process's name; undefined for arrivals without one). */
  processes?: KeyReport[] | undefined;
  /** The audit of every window (`auditThrottler`): per rate and scope, the busiest window and the windows over. */
  rates: RateAudit[];
  /** Windows that held more than their limit: 0 where the strategy is strict. */
  windowsOver: number;
  /** Events the throttler refused (`invalidEvent`): a recorded cost or channel this configuration has no room for. */
  invalidEvents: number;
}

class Tally {
  arrivals = 0;
  delivered = 0;
  readonly dropped: Record<string, number> = {};
  readonly rejected: Record<string, number> = {};
  readonly waits = new WaitHistogram();
  first = Infinity;
  last = -Infinity;

  countArrival(at: number): void {
    this.arrivals++;
    if (at < this.first) this.first = at;
  }

  countDelivery(wait: number, at: number): void {
    this.delivered++;
    this.waits.add(wait);
    if (at > this.last) this.last = at;
  }

  summary(): TrafficSummary {
    const span = this.last - this.first;
    return {
      arrivals: this.arrivals,
      delivered: this.delivered,
      dropped: { ...this.dropped },
      rejected: { ...this.rejected },
      waits: this.waits.summary(),
      throughput: span > 0 ? (this.delivered * 1000) / span : 0,
    };
  }
}

/** The counts of a whole replay and of each key, as decisions come. */
export class ReportTally {
  private readonly overall = new Tally();
  private readonly keys = new Map<string | undefined, Tally>();

  /** The key's tally, made on its first use (one lookup per event, nothing allocated after). */
  private of(key: string | undefined): Tally {
    let tally = this.keys.get(key);
    if (tally === undefined) {
      tally = new Tally();
      this.keys.set(key, tally);
    }
    return tally;
  }

  arrived(key: string | undefined, at: number): void {
    this.overall.countArrival(at);
    this.of(key).countArrival(at);
  }

  delivered(key: string | undefined, wait: number, at: number): void {
    this.overall.countDelivery(wait, at);
    this.of(key).countDelivery(wait, at);
  }

  removed(key: string | undefined, how: 'dropped' | 'rejected', reason: string): void {
    for (const tally of [this.overall, this.of(key)]) tally[how][reason] = (tally[how][reason] ?? 0) + 1;
  }

  summary(): TrafficSummary {
    return this.overall.summary();
  }

  keyReports(): KeyReport[] {
    return [...this.keys].map(([key, tally]) => ({ key, ...tally.summary() }));
  }
}

const ROUND = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));

function rows(report: ReplayReport): Map<string, string> {
  const row = new Map<string, string>([
    ['arrivals', String(report.arrivals)],
    ['delivered', String(report.delivered)],
  ]);
  for (const [reason, count] of Object.entries(report.dropped)) row.set(`dropped: ${reason}`, String(count));
  for (const [reason, count] of Object.entries(report.rejected)) row.set(`rejected: ${reason}`, String(count));
  row.set('unfinished', String(report.unfinished));
  row.set('wait p50 (ms)', ROUND(report.waits.p50));
  row.set('wait p99 (ms)', ROUND(report.waits.p99));
  row.set('wait max (ms)', ROUND(report.waits.max));
  row.set('throughput (/s)', ROUND(report.throughput));
  row.set('windows over', String(report.windowsOver));
  for (const rate of report.rates.filter((each) => each.scope === 'overall')) {
    row.set(
      `busiest window of ${rate.rate}${rate.dimension ? ` (${rate.dimension})` : ''}`,
      `${rate.most} / ${rate.limit}`,
    );
  }
  return row;
}

/** Where a figure's row goes, so that rows one report lacks still fall in their place. */
const ROW_ORDER = [
  'arrivals',
  'delivered',
  'dropped',
  'rejected',
  'unfinished',
  'wait',
  'throughput',
  'windows',
  'busiest',
];

function rowRank(name: string): number {
  return ROW_ORDER.findIndex((start) => name.startsWith(start));
}

/**
 * The reports side by side as a markdown table: one row per figure, one column per configuration, a
 * figure that differs from the first column's in bold, and a figure one configuration lacks (a rate it does
 * not have) as `-`.
 */
export function comparisonTable(reports: readonly ReplayReport[]): string {
  const columns = reports.map(rows);
  const names: string[] = [];
  for (const column of columns) for (const name of column.keys()) if (!names.includes(name)) names.push(name);
  names.sort((a, b) => rowRank(a) - rowRank(b)); // stable: within a kind, in the order first seen
  const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = [
    `| | ${reports.map((report) => cell(report.name)).join(' | ')} |`,
    `| --- |${reports.map(() => ' ---: |').join('')}`,
  ];
  for (const name of names) {
    const first = columns[0]?.get(name) ?? '-';
    const cells = columns.map((column) => {
      const value = column.get(name) ?? '-';
      return value === first ? value : `**${value}**`;
    });
    lines.push(`| ${cell(name)} | ${cells.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
