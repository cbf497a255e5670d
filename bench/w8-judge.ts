/**
 * W8's judgement of a fleet's run (bench/w8-tenants.ts): per task its start (common clock) and, for ours,
 * the Redis time of the grant it was sent on and when it was sent. Windows over any limit by brute force
 * over the starts and over the grants' Redis times (the times the store counted: the store's guarantee),
 * the sends later than the grace after their grant, the quiet keys' waits, the noisy keys' shares.
 */
import type { FleetAuditReport } from '../src/store/index.js';
import { fixed } from './markdown.js';
import { percentile } from './stats.js';
import type { W8Contender, W8Report } from './w8-worker.js';

export interface Rate {
  limit: number;
  interval: number;
}
export interface Scenario {
  id: 'w8-noisy' | 'w8-tenants' | 'w8-weighted';
  processes: number;
  seconds: number;
  overall: Rate;
  key: Rate;
  /** Per process: submissions (ms after the start, key index); keys[0..heavy) are the noisy ones. */
  schedule: Array<{ at: number[]; key: number[] }>;
  keys: string[];
  heavy: number;
  contenders: W8Contender[];
  /** 'w8-weighted': the heavy keys' weights (keys[0..heavy)); every other key weighs 1. */
  weights?: number[];
}

/** Windows [t, t + interval) starting at a start that hold more than the limit: two pointers over the sorted starts. */
function windowsOver(times: number[], rate: Rate): number {
  return windowsOverAt(times, rate).length;
}

/** The starts of those windows. */
function windowsOverAt(times: number[], rate: Rate): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  const over: number[] = [];
  let end = 0;
  for (let begin = 0; begin < sorted.length; begin++) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[begin] as number) + rate.interval) end++;
    if (end - begin > rate.limit) over.push(sorted[begin] as number);
  }
  return over;
}

/** A task of ours as the run saw it: its start (common clock), its grant and its send (Redis time). */
interface Followed {
  start: number;
  grant: number;
  sent: number;
}

/** Each key's windows over on the starts, with the grants (Redis ms, mod 100 s) and how late each was sent. */
function explainStartsOver(tasksByKey: ReadonlyMap<number, Followed[]>, s: Scenario): string[] {
  const explained: string[] = [];
  for (const [key, tasks] of tasksByKey) {
    for (const from of windowsOverAt(
      tasks.map((task) => task.start),
      s.key,
    )) {
      const inside = tasks
        .filter((task) => task.start >= from && task.start < from + s.key.interval)
        .sort((a, b) => a.start - b.start);
      explained.push(
        `${s.keys[key]}: starts over from ${fixed(from, 1)}: ` +
          inside
            .map(
              (task) =>
                `start +${fixed(task.start - from, 1)} grant ${fixed(task.grant % 100_000, 3)} late ${fixed(task.sent - task.grant, 1)}`,
            )
            .join('; '),
      );
    }
  }
  return explained;
}

export interface W8Row {
  scenario: string;
  contender: W8Contender;
  tasks: number;
  started: number;
  quietWaits: { p50: number; p99: number; max: number; count: number; unstarted: number };
  /** The noisy keys' starts per second as a share of their key's limit. */
  heavyShare: number;
  /** All starts as a share of the overall limit over the run. */
  overallUse: number;
  startWindowsOver: number;
  startWindowsOverByScope: { overall: number; keys: number };
  /** Ours: the same brute force over the grants' Redis times, the times the store counted (overall / keys). */
  grantWindowsOver?: { overall: number; keys: number };
  /** Ours: sends after their grant's Redis time (ms, on Redis' clock as read by TIME around the run). */
  lateness?: {
    p50: number;
    p99: number;
    max: number;
    overGrace: number;
    early: number;
    uncertainty: number;
    drift: number;
  };
  /** Ours: sends on no grant, and tasks the bench could not follow to their grant. */
  ungranted?: number;
  unfollowed?: number;
  /** Ours: the processes told their link too slow for the grace (storeSlow), the widest grace in use, grants rewound. */
  slow?: { processes: number; maxGraceMs: number; rewoundGiven: number; rewoundRetimed: number };
  /** Ours: sends on a grant another send was recorded on (a process-side bug if ever above 0). */
  reusedGrants?: number;
  /** Ours: each key's window over on the starts, its tasks' starts, grants and lateness. */
  startsOverExplained?: string[];
  /** Each noisy key's starts as a share of its key's limit over the run: lowest and highest. */
  heavyShareRange: { min: number; max: number };
  auditWindowsOver: number | undefined;
  auditGaps: number | undefined;
  roundTripsPerTask: number;
  errors: number;
}

/** The store's grace (createRedisStore's default `grantGraceMs`): a send later than this after its grant is late. */
const GRACE_MS = 20;

export function judge(s: Scenario, contender: W8Contender, reports: W8Report[], audit?: FleetAuditReport): W8Row {
  const byKey = new Map<number, number[]>();
  const grantsByKey = new Map<number, number[]>();
  const grants: number[] = [];
  const lateness: number[] = [];
  let early = 0;
  let uncertainty = 0;
  let drift = 0;
  let ungranted = 0;
  const slow = { processes: 0, maxGraceMs: 0, rewoundGiven: 0, rewoundRetimed: 0 };
  let reusedGrants = 0;
  let unfollowed = 0;
  const ours = reports.every((report) => report.grantAt !== undefined);
  const followed = new Map<number, Followed[]>();
  const all: number[] = [];
  const quietWaits: number[] = [];
  let unstarted = 0;
  let heavyStarts = 0;
  let roundTrips = 0;
  let errors = 0;
  for (const [p, report] of reports.entries()) {
    roundTrips += report.roundTrips;
    errors += report.errors;
    const keys = (s.schedule[p] as { key: number[] }).key;
    const offset = report.redisOffset;
    if (offset !== undefined) {
      uncertainty = Math.max(uncertainty, offset.uncertainty);
      drift = Math.max(drift, Math.abs(offset.after - offset.before));
    }
    ungranted += report.ungranted ?? 0;
    if (report.slow !== undefined) {
      slow.processes += 1;
      slow.maxGraceMs = Math.max(slow.maxGraceMs, report.slow.graceMs);
    }
    reusedGrants += report.reused ?? 0;
    slow.rewoundGiven += report.rewound?.given ?? 0;
    slow.rewoundRetimed += report.rewound?.retimed ?? 0;
    unfollowed += report.unfollowed ?? 0;
    for (const [index, grant] of (report.grantAt ?? []).entries()) {
      if (grant === null || Number.isNaN(grant)) continue;
      const key = keys[index] as number;
      grants.push(grant);
      let list = grantsByKey.get(key);
      if (list === undefined) grantsByKey.set(key, (list = []));
      list.push(grant);
      const sent = report.sentAt?.[index];
      if (offset !== undefined && typeof sent === 'number' && !Number.isNaN(sent)) {
        // Redis' clock at the send: the offset read before and after the run, in between taken as the mean.
        const late = sent + (offset.before + offset.after) / 2 - grant;
        lateness.push(late);
        const start = report.started[index];
        if (typeof start === 'number') {
          let tasks = followed.get(key);
          if (tasks === undefined) followed.set(key, (tasks = []));
          tasks.push({ start, grant, sent: grant + late });
        }
        if (late < -offset.uncertainty) early++;
      }
    }
    for (const [index, started] of report.started.entries()) {
      const key = keys[index] as number;
      const light = key >= s.heavy;
      // NaN comes over IPC as null: not started.
      if (started === null || Number.isNaN(started)) {
        if (light) unstarted++;
        continue;
      }
      all.push(started);
      let list = byKey.get(key);
      if (list === undefined) byKey.set(key, (list = []));
      list.push(started);
      if (light) quietWaits.push(started - (report.submitted[index] as number));
      else heavyStarts++;
    }
  }
  const overallOver = windowsOver(all, s.overall);
  let keysOver = 0;
  for (const times of byKey.values()) keysOver += windowsOver(times, s.key);
  const startsOverExplained = ours && keysOver > 0 ? explainStartsOver(followed, s) : [];
  for (const line of startsOverExplained) console.error(line);
  let grantKeysOver = 0;
  for (const times of grantsByKey.values()) grantKeysOver += windowsOver(times, s.key);
  const perRun = (seconds: number) => s.key.limit * ((seconds * 1000) / s.key.interval);
  const heavyShares = Array.from({ length: s.heavy }, (_, key) => (byKey.get(key)?.length ?? 0) / perRun(s.seconds));
  const startWindowsOver = overallOver + keysOver;
  const seconds = s.seconds;
  const tasks = s.schedule.reduce((sum, p) => sum + p.at.length, 0);
  return {
    scenario: s.id,
    contender,
    tasks,
    started: all.length,
    quietWaits: {
      p50: percentile(quietWaits, 50),
      p99: percentile(quietWaits, 99),
      max: Math.max(...quietWaits),
      count: quietWaits.length,
      unstarted,
    },
    heavyShare: heavyStarts / (s.heavy * s.key.limit * ((seconds * 1000) / s.key.interval)),
    overallUse: all.length / (s.overall.limit * ((seconds * 1000) / s.overall.interval)),
    startWindowsOver,
    startWindowsOverByScope: { overall: overallOver, keys: keysOver },
    ...(ours
      ? {
          grantWindowsOver: { overall: windowsOver(grants, s.overall), keys: grantKeysOver },
          lateness: {
            p50: percentile(lateness, 50),
            p99: percentile(lateness, 99),
            max: Math.max(...lateness),
            overGrace: lateness.filter((late) => late > GRACE_MS).length,
            early,
            uncertainty,
            drift,
          },
          ungranted,
          slow,
          reusedGrants,
          startsOverExplained,
          unfollowed,
        }
      : {}),
    heavyShareRange: { min: Math.min(...heavyShares), max: Math.max(...heavyShares) },
    auditWindowsOver: audit?.windowsOver,
    auditGaps: audit?.gaps,
    roundTripsPerTask: roundTrips / Math.max(1, all.length),
    errors,
  };
}
