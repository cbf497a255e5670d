/**
 * W8, keys on a shared store: no key waits behind another's backlog. Two runs, each a fleet of
 * processes (bench/w8-worker.ts) on the real Redis, on the fleet's common clock:
 *
 * - `w8-noisy`: 4 processes share 100 per 1000 ms overall and 10 per 1000 ms per key; a noisy key has
 *   1,000 tasks waiting at the start (250 in each process) and a quiet key sends one a second, in turn
 *   from each process, for 20 s. Ours with per-channel ordering, ours FIFO, and Bottleneck 2 Groups on
 *   Redis (a reservoir per key, every key's limiter chained to one overall limiter).
 * - `w8-tenants`: 8 processes, 10,000 tenants, 60 s: 2,000 per 1000 ms overall, 5 per 1000 ms per key;
 *   ten heavy tenants send 20 a second each (4x their key's limit), the others one every 50 s on
 *   average (`--light 0.02` a second, Poisson), spread over the processes: about 400 a second offered. Ours with per-channel ordering.
 *
 * Reported (bench/w8-judge.ts): the quiet (light) keys' waits from submission to start (p50/p99/max), the
 * noisy (heavy) keys' share of their own limit, overall use, windows over any limit by brute force over the
 * starts (overall and every key) and, for ours, over the grants' Redis times (each task's grant, as the
 * store counted it: bench/w8-worker.ts records it) with the sends later than the grace after their grant,
 * and the fleet audit on Redis time where it runs; and Redis round trips per task.
 *
 *   npm run bench:keys -- [--only w8-noisy|w8-tenants] [--seconds N] [--tenants N] [--light per s] [--contenders a,b] [--audit]
 *
 * Prints markdown and writes bench/results/w8.json.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createRedisStore } from '../src/redis/index.js';
import type { FleetAuditReport } from '../src/store/index.js';
import { fixed, integer, table } from './markdown.js';
import { deleteKeysContaining, REDIS_URL } from './redis-round-trips.js';
import { commonNow } from './w6-protocol.js';
import { judge, type Scenario, type W8Row } from './w8-judge.js';
import { w8Shares } from './w8-shares.js';
import type { W8Contender, W8Go, W8Open, W8Report } from './w8-worker.js';

const WORKER = fileURLToPath(new URL('./w8-worker.ts', import.meta.url));

function noisyScenario(seconds: number): Scenario {
  const schedule = Array.from({ length: 4 }, () => ({ at: [] as number[], key: [] as number[] }));
  for (let n = 0; n < 1000; n++) {
    schedule[n % 4]?.at.push(0);
    schedule[n % 4]?.key.push(0);
  }
  for (let s = 0; s < seconds; s++) {
    schedule[s % 4]?.at.push(500 + 1000 * s);
    schedule[s % 4]?.key.push(1);
  }
  return {
    id: 'w8-noisy',
    processes: 4,
    seconds: seconds + 1,
    overall: { limit: 100, interval: 1000 },
    key: { limit: 10, interval: 1000 },
    schedule,
    keys: ['noisy', 'quiet'],
    heavy: 1,
    contenders: ['ours-lines', 'ours-fifo', 'bottleneck-group'],
  };
}

/** With weights: the overall limit binds (the heavy keys offer more than it leaves them), shared by weight. */
function weightedScenario(seconds: number, tenants: number, lightPerSecond: number): Scenario {
  const scenario = tenantsScenario(seconds, tenants, lightPerSecond, 60);
  return {
    ...scenario,
    id: 'w8-weighted',
    overall: { limit: 400, interval: 1000 },
    key: { limit: 50, interval: 1000 },
    contenders: ['ours-weighted'],
    weights: Array.from({ length: scenario.heavy }, (_, n) => 1 + (n % 4)),
  };
}

function tenantsScenario(seconds: number, tenants: number, lightPerSecond: number, heavyPerSecond = 20): Scenario {
  const processes = 8;
  const heavy = 10;
  const keys = Array.from({ length: tenants }, (_, n) => `tenant-${n}`);
  const events: Array<[number, number]> = [];
  // A fixed seed: the same arrivals every run.
  let seed = 0x2f6b3a1;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const poisson = (perSecond: number, key: number) => {
    for (
      let t = -Math.log(1 - random()) * (1000 / perSecond);
      t < seconds * 1000;
      t += -Math.log(1 - random()) * (1000 / perSecond)
    )
      events.push([t, key]);
  };
  for (let key = 0; key < heavy; key++) poisson(heavyPerSecond, key);
  for (let key = heavy; key < tenants; key++) poisson(lightPerSecond, key);
  events.sort((a, b) => a[0] - b[0]);
  const schedule = Array.from({ length: processes }, () => ({ at: [] as number[], key: [] as number[] }));
  for (const [index, [at, key]] of events.entries()) {
    schedule[index % processes]?.at.push(at);
    schedule[index % processes]?.key.push(key);
  }
  return {
    id: 'w8-tenants',
    processes,
    seconds: seconds + 2,
    overall: { limit: 2000, interval: 1000 },
    key: { limit: 5, interval: 1000 },
    schedule,
    keys,
    heavy,
    contenders: ['ours-lines'],
  };
}

function nextMessage<T>(worker: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${type}' within ${timeoutMs} ms`)), timeoutMs);
    worker.on('message', (message: { type?: string }) => {
      if (message?.type !== type) return;
      clearTimeout(timer);
      resolve(message as T);
    });
    worker.once('exit', (code, signal) => reject(new Error(`exited (${code ?? signal}) before '${type}'`)));
  });
}

async function runFleet(redis: Redis, scenario: Scenario, contender: W8Contender): Promise<W8Row> {
  const name = `bench-w8-${contender}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const workers = scenario.schedule.map(() =>
    fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }),
  );
  const exited = workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)));
  try {
    const ready = workers.map((worker) => nextMessage(worker, 'ready', 60_000));
    for (const [p, worker] of workers.entries()) {
      const { at, key } = scenario.schedule[p] as { at: number[]; key: number[] };
      const open: W8Open = {
        type: 'open',
        contender,
        name,
        overall: scenario.overall,
        key: scenario.key,
        at,
        key_: key,
        keys: scenario.keys,
        ...(scenario.weights && { weights: scenario.weights }),
      };
      worker.send(open);
    }
    await Promise.all(ready);
    const startAt = commonNow() + 500;
    const endAt = startAt + scenario.seconds * 1000;
    const done = workers.map((worker) => nextMessage<W8Report>(worker, 'done', scenario.seconds * 1000 + 60_000));
    for (const worker of workers) worker.send({ type: 'go', startAt, endAt } satisfies W8Go);
    // Ours: the fleet's audit on Redis time, read twice an interval so that it is exact. Not with 10,000
    // tenants unless asked (--audit): its reads, every 400 ms from this process, slowed that fleet down;
    // the brute force over every task's grant on Redis time judges that run exactly.
    let audit: FleetAuditReport | undefined;
    const audited =
      contender !== 'bottleneck-group' && (scenario.id === 'w8-noisy' || process.argv.includes('--audit'));
    const store = audited ? createRedisStore({ redis, name, commandTimeout: 20_000 }) : undefined;
    while (store !== undefined && commonNow() < endAt + 1500) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      if (commonNow() > startAt) audit = await store.audit();
    }
    await store?.close();
    const reports = await Promise.all(done);
    if (scenario.weights !== undefined) console.log(JSON.stringify(w8Shares(scenario, reports), null, 1));
    return judge(scenario, contender, reports, audit);
  } finally {
    for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await Promise.all(exited);
    await deleteKeysContaining(redis, name);
  }
}

export function w8Table(rows: readonly W8Row[]): string[] {
  return table(
    [
      'run',
      'contender',
      'tasks started',
      'quiet waits p50 / p99 / max (ms)',
      'noisy: share of its key limit',
      'overall use',
      'windows over (starts / grants on Redis time / audit)',
      'sends after their grant p50 / p99 / max (ms; later than the grace)',
      'round trips per task',
    ],
    rows.map((row) => [
      row.scenario,
      row.contender,
      `${integer(row.started)} of ${integer(row.tasks)}`,
      `${fixed(row.quietWaits.p50, 1)} / ${fixed(row.quietWaits.p99, 1)} / ${fixed(row.quietWaits.max, 1)}` +
        (row.quietWaits.unstarted > 0 ? ` (${integer(row.quietWaits.unstarted)} never started)` : ''),
      `${fixed(100 * row.heavyShare, 1)}%`,
      `${fixed(100 * row.overallUse, 1)}%`,
      `${integer(row.startWindowsOver)} / ${row.grantWindowsOver === undefined ? 'n/a' : integer(row.grantWindowsOver.overall + row.grantWindowsOver.keys)} / ${row.auditWindowsOver === undefined ? 'n/a' : `${integer(row.auditWindowsOver)} (gaps ${row.auditGaps})`}`,
      row.lateness === undefined
        ? 'n/a'
        : `${fixed(row.lateness.p50, 1)} / ${fixed(row.lateness.p99, 1)} / ${fixed(row.lateness.max, 1)} (${integer(row.lateness.overGrace)})`,
      fixed(row.roundTripsPerTask, 3),
    ]),
  );
}

async function main(): Promise<void> {
  const argv = process.argv;
  const flag = (name: string) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const only = flag('--only');
  const scenarios: Scenario[] = [];
  if (only === undefined || only === 'w8-noisy') scenarios.push(noisyScenario(Number(flag('--seconds') ?? 20)));
  if (only === undefined || only === 'w8-tenants')
    scenarios.push(
      tenantsScenario(
        Number(flag('--seconds') ?? 60),
        Number(flag('--tenants') ?? 10_000),
        Number(flag('--light') ?? 0.02),
      ),
    );
  if (only === 'w8-weighted')
    scenarios.push(
      weightedScenario(
        Number(flag('--seconds') ?? 60),
        Number(flag('--tenants') ?? 10_000),
        Number(flag('--light') ?? 0.02),
      ),
    );
  const contenders = flag('--contenders')?.split(',') as W8Contender[] | undefined;
  if (contenders !== undefined) for (const scenario of scenarios) scenario.contenders = contenders;
  const redis = new Redis(REDIS_URL);
  const rows: W8Row[] = [];
  for (const scenario of scenarios) {
    for (const contender of scenario.contenders) {
      console.error(`${scenario.id} ${contender} (${scenario.processes} processes, ${scenario.seconds} s)`);
      rows.push(await runFleet(redis, scenario, contender));
    }
  }
  redis.disconnect();
  console.log(w8Table(rows).join('\n'));
  const file = only === 'w8-weighted' ? 'w8-weighted.json' : 'w8.json';
  writeFileSync(new URL(`./results/${file}`, import.meta.url), `${JSON.stringify(rows, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
