/**
 * W9, one limit across regions (issue 38), with real processes and real Redis servers on one host: 3
 * regions of 4 processes (bench/w9-region-worker.ts), each region its own throwaway redis-server, demand
 * 0.8 / 0.1 / 0.1 of twice the limit rotating between the regions every `phaseMs`, latency injected
 * between each region and home. Three ways to share the limit, each a fresh run:
 *
 * - shares: home (createShareHome, in this process) lends shares; each region's agent (createRegionShares,
 *   a process of its own, bench/w9-region-agent.ts, its link to home over IPC delayed `latencyMs` each way in
 *   that process) keeps its Redis at its share; each region's processes watch it and run their throttlers
 *   over the watch's store;
 * - static: each region keeps limit / 3 on its own Redis, no home;
 * - per-grant: every process asks one Redis at home for every grant, through a proxy adding `latencyMs`
 *   each way;
 * - single: the baseline, every process on one Redis with no latency (a single-region fleet on this host).
 *
 * Judged on the grants' Redis times (one host, one clock): every window starting at a grant by brute
 * force, the share of the limit used after the first phase's warm-up, each region's reserve round trips.
 * `partition`: region 0's link to home cut for `cutMs` from `cutFromMs` (shares only), and what the others
 * used meanwhile. Usage: REDIS_TEST_PORTS=6590-6650 npx tsx bench/w9-regions.ts [seconds] [latencies] [modes]
 * [limit,intervalMs], e.g. `90 40,80,150 shares,single,static,per-grant` or `90 80 partition`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createShareHome } from '../src/store/index.js';
import { startDelayingProxy } from '../test/support/delaying-proxy.js';
import { freePort, type RedisServer, startRedisServer } from '../test/support/redis-server.js';
import type { FromAgent, ToAgent } from './w9-region-agent.js';
import type { RegionWorkerOpen, RegionWorkerReport } from './w9-region-worker.js';

export type W9Mode = 'shares' | 'static' | 'per-grant' | 'single';

export interface W9Options {
  readonly mode: W9Mode;
  readonly limit: number;
  readonly intervalMs: number;
  readonly latencyMs: number;
  readonly durationMs: number;
  readonly phaseMs: number;
  readonly processesPerRegion: number;
  readonly cut?: { readonly fromMs: number; readonly forMs: number } | undefined;
}

export interface W9Result {
  readonly options: W9Options;
  readonly grants: number;
  readonly windowsOver: number;
  readonly mostInWindow: number;
  /** Grants after the first phase's first 5 s over what the limit allows in that time. */
  readonly used: number;
  /** Per region: p50 and p99 of a reserve call's round trip, ms. */
  readonly reserveP50: number[];
  readonly reserveP99: number[];
  readonly asks: number[];
  readonly lateActs: number[];
  /** Per region: pauses its processes' watches sent (no renewal heard for a lease less a renewal). */
  readonly watchPauses: number[];
  /** Per region: sends not on a store grant (never expected), tasks the bounded queues gave up, the slowest watch to hear the agent (ms). */
  readonly ungranted: number[];
  readonly overflowed: number[];
  readonly readyAfterMs: number[];
  /** With a cut: the others' grants during it (from 2 s in) over the limit's worth, and the cut region's share. */
  readonly othersUsedDuringCut?: number | undefined;
  readonly cutShare?: number | undefined;
}

const REGIONS = 3;
const TERMS = { leaseMs: 4000, renewEveryMs: 500, reserveAheadMs: 500 } as const;

/** Demand per process, per phase: region r is the heavy one in phase r. */
function perSecondOf(region: number, options: W9Options): number[] {
  const total = (2 * options.limit * 1000) / options.intervalMs;
  return Array.from(
    { length: REGIONS },
    (_, phase) => ((phase === region ? 0.8 : 0.1) * total) / options.processesPerRegion,
  );
}

interface Region {
  readonly index: number;
  readonly waiting: number[];
  readonly reports: RegionWorkerReport[];
  /** The agent's share in force, as it last said (every 100 ms), and its counts at the end. */
  limits: number[];
  asks: number;
  lateActs: number;
  cut: boolean;
}

function forkWorker(
  region: Region,
  slot: number,
  open: RegionWorkerOpen,
): { child: ChildProcess; done: Promise<void> } {
  const child = fork(fileURLToPath(new URL('./w9-region-worker.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
  });
  const done = new Promise<void>((resolve, reject) => {
    child.on('message', (message: { type: 'waiting'; waiting: number } | RegionWorkerReport) => {
      if (message.type === 'waiting') region.waiting[slot] = message.waiting;
      else region.reports.push(message);
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}`))));
  });
  child.send(open);
  return { child, done };
}

/** The region's agent, a process of its own: home answers its asks here (none while the region is cut). */
async function regionAgent(region: Region, port: number, name: string, options: W9Options) {
  const home = homeOf(options);
  const child = fork(fileURLToPath(new URL('./w9-region-agent.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
  });
  const tell = (message: ToAgent) => child.send(message);
  let reported = () => {};
  const done = new Promise<void>((resolve) => {
    reported = resolve;
  });
  const started = new Promise<void>((resolve, reject) => {
    child.on('message', (message: FromAgent) => {
      if (message.type === 'ask') {
        if (!region.cut) tell({ type: 'grant', id: message.id, grant: home.answer(message.ask) });
      } else if (message.type === 'limits') region.limits = message.limits;
      else if (message.type === 'started') resolve();
      else {
        region.asks = message.asks;
        region.lateActs = message.lateActs;
        reported();
      }
    });
    child.once('exit', (code) => (code === 0 ? reported() : reject(new Error(`agent exited ${code}`))));
  });
  tell({
    type: 'open',
    region: `r${region.index}`,
    port,
    name,
    config: configOf(options),
    terms: TERMS,
    latencyMs: options.latencyMs,
  });
  const demand = setInterval(() => {
    tell({ type: 'demand', demand: region.waiting.reduce((sum, n) => sum + n, 0) });
  }, 100);
  await started;
  const close = async () => {
    clearInterval(demand);
    tell({ type: 'stop' });
    await done;
  };
  return { close };
}

let sharedHome: ReturnType<typeof createShareHome> | undefined;
function homeOf(options: W9Options) {
  // Home knows the regions to expect (docs/regions.md, "Regions to expect"): the first to ask gets a third.
  const regions = Array.from({ length: REGIONS }, (_, index) => `r${index}`);
  sharedHome ??= createShareHome({ ...TERMS, rate: `${options.limit}/${options.intervalMs}ms`, fresh: false, regions });
  return sharedHome;
}

function configOf(options: W9Options) {
  const limit = options.mode === 'static' ? Math.floor(options.limit / REGIONS) : options.limit;
  return { strategy: 'sliding-window', rates: `${limit}/${options.intervalMs}ms` } as const;
}

/** Where each region's processes connect: their own Redis, or (per-grant) home's through a delaying proxy. */
async function endpoints(servers: RedisServer[], options: W9Options) {
  if (options.mode === 'single')
    return { ports: servers.map(() => (servers[0] as RedisServer).port), close: async () => {} };
  if (options.mode !== 'per-grant') return { ports: servers.map((s) => s.port), close: async () => {} };
  const proxies = await Promise.all(
    servers.map(() =>
      startDelayingProxy({ host: '127.0.0.1', port: (servers[0] as RedisServer).port }, options.latencyMs, 64),
    ),
  );
  return {
    ports: proxies.map((p) => p.port),
    close: async () => void (await Promise.all(proxies.map((p) => p.close()))),
  };
}

export async function runW9(options: W9Options): Promise<W9Result> {
  sharedHome = undefined;
  const servers: RedisServer[] = [];
  try {
    for (let i = 0; i < REGIONS; i += 1) {
      servers.push(await startRedisServer(await freePort(), mkdtempSync(join(tmpdir(), 'w9-'))));
    }
    return await runOn(servers, options);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    for (const server of servers) rmSync(server.dir, { recursive: true, force: true });
  }
}

async function runOn(servers: RedisServer[], options: W9Options): Promise<W9Result> {
  const name = `w9-${options.mode}-${Date.now()}`;
  const regions: Region[] = Array.from({ length: REGIONS }, (_, index) => ({
    index,
    waiting: [],
    reports: [],
    limits: [],
    asks: 0,
    lateActs: 0,
    cut: false,
  }));
  const links = await endpoints(servers, options);
  const agents =
    options.mode === 'shares'
      ? await Promise.all(regions.map((r) => regionAgent(r, servers[r.index]?.port as number, name, options)))
      : [];
  const workers = regions.flatMap((region) =>
    Array.from({ length: options.processesPerRegion }, (_, slot) =>
      forkWorker(region, slot, {
        type: 'open',
        port: links.ports[region.index] as number,
        name,
        config: configOf(options),
        maxReserveAheadMs: TERMS.reserveAheadMs,
        perSecond: perSecondOf(region.index, options),
        phaseMs: options.phaseMs,
        durationMs: options.durationMs,
        watch: options.mode === 'shares' ? TERMS : undefined,
      }),
    ),
  );
  let cutShare: number | undefined;
  const startedAt = Date.now();
  if (options.cut !== undefined) {
    const { fromMs, forMs } = options.cut;
    setTimeout(() => {
      cutShare = regions[0]?.limits[0];
      (regions[0] as Region).cut = true;
    }, fromMs);
    setTimeout(() => ((regions[0] as Region).cut = false), fromMs + forMs);
  }
  const dump = dumpOf(regions, options);
  await Promise.all(workers.map((w) => w.done));
  dump?.write();
  await Promise.all(agents.map((a) => a.close()));
  await links.close();
  return judge(regions, options, startedAt, cutShare);
}

/** W9_DUMP=file: every grant per region and, every 10 ms, each agent's share and home's count, for a window over. */
function dumpOf(regions: Region[], options: W9Options) {
  const file = process.env.W9_DUMP;
  if (file === undefined || options.mode !== 'shares') return undefined;
  const timeline: [number, ...number[]][] = [];
  const poll = setInterval(() => {
    const held = regions.map((r) => sharedHome?.held(`r${r.index}`)[0] ?? -1);
    timeline.push([Date.now(), ...regions.map((r) => r.limits[0] ?? -1), ...held]);
  }, 10);
  return {
    write() {
      clearInterval(poll);
      const grants = regions.map((r) => r.reports.flatMap((report) => report.grants));
      writeFileSync(file, JSON.stringify({ grants, timeline }));
    },
  };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number);
}

/** Every window [s, s + W) starting at a grant, by brute force (two pointers over the sorted times). */
function windows(times: readonly number[], limit: number, interval: number) {
  let over = 0;
  let most = 0;
  let end = 0;
  for (let start = 0; start < times.length; start += 1) {
    while (end < times.length && (times[end] as number) < (times[start] as number) + interval) end += 1;
    most = Math.max(most, end - start);
    if (end - start > limit) over += 1;
  }
  return { over, most };
}

function judge(regions: Region[], options: W9Options, startedAt: number, cutShare: number | undefined): W9Result {
  const all = regions.flatMap((r) => r.reports.flatMap((report) => report.grants)).sort((a, b) => a - b);
  const { over, most } = windows(all, options.limit, options.intervalMs);
  const from = (all[0] ?? 0) + 5000;
  // To 1 s before the last grant: the processes start granting once their watches heard the agent, not at once.
  const to = Math.min((all[0] ?? 0) + options.durationMs, all.at(-1) ?? 0) - 1000;
  const allowed = (options.limit * (to - from)) / options.intervalMs;
  const used = all.filter((t) => t >= from && t < to).length / allowed;
  let othersUsedDuringCut: number | undefined;
  if (options.cut !== undefined) {
    const cutFrom = startedAt + options.cut.fromMs + 2000;
    const cutTo = startedAt + options.cut.fromMs + options.cut.forMs;
    const others = regions.slice(1).flatMap((r) => r.reports.flatMap((report) => report.grants));
    othersUsedDuringCut =
      others.filter((t) => t >= cutFrom && t < cutTo).length /
      ((options.limit * (cutTo - cutFrom)) / options.intervalMs);
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    options,
    grants: all.length,
    windowsOver: over,
    mostInWindow: most,
    used: round(used),
    reserveP50: regions.map((r) =>
      round(
        percentile(
          r.reports.flatMap((x) => x.reserveMs),
          0.5,
        ),
      ),
    ),
    reserveP99: regions.map((r) =>
      round(
        percentile(
          r.reports.flatMap((x) => x.reserveMs),
          0.99,
        ),
      ),
    ),
    asks: regions.map((r) => r.asks),
    lateActs: regions.map((r) => r.lateActs),
    watchPauses: regions.map((r) => r.reports.reduce((sum, report) => sum + (report.watchPauses ?? 0), 0)),
    ungranted: regions.map((r) => r.reports.reduce((sum, report) => sum + report.ungranted, 0)),
    overflowed: regions.map((r) => r.reports.reduce((sum, report) => sum + report.overflowed, 0)),
    readyAfterMs: regions.map((r) => Math.round(Math.max(0, ...r.reports.map((report) => report.readyAfterMs)))),
    othersUsedDuringCut: othersUsedDuringCut === undefined ? undefined : round(othersUsedDuringCut),
    cutShare,
  };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 60);
  const latencies = (process.argv[3] ?? '40,80,150').split(',').map(Number);
  const modes = (process.argv[4] ?? 'shares,static,per-grant').split(',') as W9Mode[];
  const [limit, intervalMs] = (process.argv[5] ?? '300,1000').split(',').map(Number) as [number, number];
  const base = { limit, intervalMs, durationMs: seconds * 1000, phaseMs: 30_000, processesPerRegion: 4 };
  const results: W9Result[] = [];
  for (const mode of modes) {
    for (const latencyMs of mode === 'static' || mode === 'single' ? [0] : latencies) {
      const partition = (mode as string) === 'partition';
      const cut = partition ? { fromMs: 15_000, forMs: 60_000 } : undefined;
      const result = await runW9({ ...base, mode: partition ? 'shares' : mode, latencyMs, cut });
      console.log(JSON.stringify(result));
      results.push(result);
    }
  }
  writeFileSync(
    join(
      import.meta.dirname,
      'results',
      `w9-regions-${modes.join('-')}-${latencies.join('-')}ms-${seconds}s-${limit}-${intervalMs}.json`,
    ),
    `${JSON.stringify(results, null, 2)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
