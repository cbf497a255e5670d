import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Delivery, overfullWindows } from '../support/oracle.js';
import { uniqueName } from '../support/redis.js';
import { freePort, type RedisServer, serverDir, startRedisServer } from '../support/redis-server.js';

/**
 * Issue 33, section 1, as it happens in production: four processes, each a promise-API throttler at
 * `20/500ms` on the store with 40 tasks; Redis is killed (SIGKILL) about a second into the run and
 * started again, empty, on the same port 1.5 s later. Before the fix, with onStoreDown 'local', 1 to
 * 3 processes of most runs never started their remaining tasks (storeUp, then nothing). For each
 * outage policy: every task runs exactly once, within a generous bound, and the windows keep what
 * docs/redis.md ("Redis down") promises, checked by brute force over the merged deliveries:
 * - every delivery on a grant, counted at its grant's Redis time: no window over the limit (a grant
 *   counts at its Redis time; Redis' clock and the host's are one clock here);
 * - 'pause': nothing goes but on a grant;
 * - 'local': from the outage's start on (each process's own storeDown, and the fleet's last send on
 *   grants held from before it: the documented exception at the outage's start), the local sends at
 *   their host time and the grants at theirs: no window over the limit, across Redis' return too (each
 *   process holds its local window for the longest interval + grace + reconnectWithin + 1 s after it hears
 *   of the return, and sends locally only until a second past the end of its last failed call, that end
 *   counted at most reconnectWithin after the call began, however late it hears: the workers' clients
 *   reconnect within 500 ms, reconnectWithin is 1.5 s). Once, before local sends were bounded so, a process
 *   starved of the CPU still sent locally 2.5 s after the return. A window over prints the deliveries in it,
 *   and each process's events (DIAG); each run prints, per process, when it heard of the return, its client
 *   was ready and it last sent locally, and how late its timers fired at worst (ms from the return).
 */
const FLEET = 4;
const TASKS = 40;
const LIMIT = 20;
const INTERVAL = 500;
/** Each process's share of the limit while Redis is down (the worker's localShare). */
const _LOCAL_SHARE = 0.25;
/** Every task of the fleet runs within this of Redis' restart (about 3 s on a quiet machine). */
const DONE_WITHIN_MS = 60_000;

let dir: ReturnType<typeof serverDir>;
let port: number;
let server: RedisServer | undefined;
let admin: Redis;

beforeAll(async () => {
  dir = serverDir('fleet-restart');
  port = await freePort();
  server = await startRedisServer(port, dir.dir);
  admin = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  admin.on('error', () => {});
});

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
  dir?.remove();
});

interface Sent {
  readonly at: number;
  readonly grantedAt: number;
}

interface Worker {
  readonly child: ChildProcess;
  readonly delivered: Sent[];
  readonly ran: number[];
  /** The store's events, the client's `clientReady` and the worker's timers firing over 100 ms late (`lag`, by `ms`). */
  readonly events: Array<{ type: string; at: number; ms: number }>;
  startedAt: number;
  done: boolean;
  waiting: unknown;
  readonly exited: Promise<void>;
}

function worker(name: string, onStoreDown: 'pause' | 'local'): Worker {
  const script = join(import.meta.dirname, '..', 'fixtures', 'redis-restart-worker.ts');
  const child = fork(script, [String(port), name, onStoreDown, String(TASKS), String(FLEET)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const w: Worker = {
    child,
    delivered: [],
    ran: [],
    events: [],
    startedAt: Number.NaN,
    done: false,
    waiting: undefined,
    exited,
  };
  child.on('message', (message: Record<string, unknown>) => {
    if (message.kind === 'delivered')
      w.delivered.push({ at: Number(message.at), grantedAt: Number(message.grantedAt ?? Number.NaN) });
    else if (message.kind === 'ran') w.ran.push(Number(message.n));
    else if (message.kind === 'event')
      w.events.push({ type: String(message.type), at: Number(message.at), ms: Number(message.ms ?? Number.NaN) });
    else if (message.kind === 'started') w.startedAt = Number(message.at);
    else if (message.kind === 'done') w.done = true;
    else if (message.kind === 'waiting') w.waiting = message;
  });
  return w;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hostNow = () => performance.timeOrigin + performance.now();
const windowsOver = (deliveries: Delivery[]) =>
  overfullWindows({ overall: [{ limit: LIMIT, interval: INTERVAL }], channels: {} }, deliveries);
const at = (time: number): Delivery => ({ at: time, cost: 1, channel: undefined });

async function runRestart(onStoreDown: 'pause' | 'local') {
  const name = uniqueName(`fleet-restart-${onStoreDown}`);
  const fleet = Array.from({ length: FLEET }, () => worker(name, onStoreDown));
  try {
    // Processes take seconds to start on a busy machine (45 s at a load of 40): the run begins when the
    // last has scheduled. One that died on the way fails the test at once.
    while (!fleet.every((w) => Number.isFinite(w.startedAt))) {
      if (fleet.some((w) => w.child.exitCode !== null)) throw new Error('a worker exited before it started');
      await sleep(20);
    }
    const startedAt = Math.max(...fleet.map((w) => w.startedAt));
    await sleep(Math.max(0, startedAt + 1000 - hostNow()));
    await server?.stop();
    const killedAt = hostNow();
    await sleep(1500);
    server = await startRedisServer(port, dir.dir);
    const backAt = hostNow();
    while (!fleet.every((w) => w.done) && hostNow() < backAt + DONE_WITHIN_MS) await sleep(50);
    // What a process still waits for, if one does: told in the failure.
    for (const w of fleet) if (!w.done && w.child.connected) w.child.send('waiting?');
    await sleep(200);
    return { fleet, killedAt, backAt };
  } finally {
    for (const w of fleet) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await Promise.all(fleet.map((w) => w.exited));
    await admin.del(`xt:{${name}}:test-ready`).catch(() => 0);
  }
}

describe('a fleet of processes whose Redis is killed and restarted empty', () => {
  for (const onStoreDown of ['local', 'pause'] as const) {
    it(`with onStoreDown '${onStoreDown}': every task runs once, and the windows keep what the docs promise`, async () => {
      const { fleet, killedAt, backAt } = await runRestart(onStoreDown);
      expect(fleet.map((w) => (w.done ? 'done' : w.waiting))).toEqual(fleet.map(() => 'done'));
      for (const w of fleet) {
        expect([...w.ran].sort((a, b) => a - b)).toEqual([...Array(TASKS).keys()]);
        expect(w.delivered.length).toBe(TASKS);
      }
      // The outage was seen: each process that had something to send while Redis was down says so.
      const downs = fleet.map((w) => w.events.find((e) => e.type === 'storeDown' && e.at >= killedAt)?.at);
      expect(downs.filter((down) => down !== undefined).length).toBeGreaterThan(0);
      for (const [index, w] of fleet.entries()) {
        // A process that said storeDown says storeUp before it sends on a grant asked after Redis came back
        // (with 'local' it may go on sending on its local window while its client is still reconnecting;
        // one that had nothing to ask while Redis was down heard of no outage, and says neither).
        const down = downs[index];
        const up = w.events.find((e) => e.type === 'storeUp' && e.at >= (down ?? killedAt))?.at;
        const onLaterGrants = w.delivered.filter((d) => Number.isFinite(d.grantedAt) && d.at > backAt + 100);
        if (down !== undefined && onLaterGrants.length > 0) expect(up).toBeDefined();
      }
      const all = fleet.flatMap((w) => w.delivered);
      // On grants, counted at their Redis times: never over the limit, across the outage and the restart.
      expect(windowsOver(all.filter((d) => Number.isFinite(d.grantedAt)).map((d) => at(d.grantedAt)))).toEqual([]);
      if (onStoreDown === 'pause') {
        expect(all.filter((d) => !Number.isFinite(d.grantedAt))).toEqual([]);
        return;
      }
      const firstDown = Math.min(...downs.map((down) => down ?? Number.POSITIVE_INFINITY));
      const lastHeld = Math.max(...all.filter((d) => d.at < firstDown).map((d) => d.at));
      // Heard of Redis back: storeUp, or a state made anew (a process whose call waited out the outage).
      const ups = fleet.map(
        (w) =>
          w.events.find(
            (e) => (e.type === 'storeUp' && e.at >= backAt - 1000) || (e.type === 'fresh' && e.at > killedAt),
          )?.at,
      );
      const counted = fleet.flatMap((w, index) =>
        w.delivered
          .filter((d) => d.at > Math.max(lastHeld, (downs[index] ?? killedAt) - 1))
          .map((d) => at(Number.isFinite(d.grantedAt) ? d.grantedAt : d.at)),
      );
      // Local sends went (the outage was long enough for some), and are judged with the grants around them.
      expect(all.some((d) => !Number.isFinite(d.grantedAt))).toBe(true);
      // Redis back empty: every process keeps its local window in force for the longest interval + grace +
      // reconnectWithin + 1 s after it hears of the return (or of a state made anew), and every process's
      // local sends end by the return + reconnectWithin + 1 s, so the grants one is given after its hold are
      // in windows that start after every other process's last local send. No exception.
      const overNow = windowsOver(counted);
      const rel = (t: number) => Math.round(t - backAt);
      console.info(
        'fleet-restart local, ms from the return:',
        fleet
          .map((w, index) => {
            const ready = w.events.find((e) => e.type === 'clientReady' && e.at > killedAt)?.at;
            const lastLocal = Math.max(...w.delivered.filter((d) => !Number.isFinite(d.grantedAt)).map((d) => d.at));
            const lag = Math.max(0, ...w.events.filter((e) => e.type === 'lag' && e.at > killedAt).map((e) => e.ms));
            const heard = ups[index];
            return `p${index} heard ${heard && rel(heard)} ready ${ready && rel(ready)} lastLocal ${Number.isFinite(lastLocal) ? rel(lastLocal) : '-'} lag ${Math.round(lag)}`;
          })
          .join('; '),
      );
      if (overNow.length > 0) {
        const w0 = overNow[0] as { start: number };
        console.log(
          'DIAG killedAt',
          rel(killedAt),
          'downs',
          downs.map((d) => d && rel(d)),
          'ups',
          ups.map((u) => u && rel(u)),
          'lastHeld',
          rel(lastHeld),
        );
        fleet.forEach((w, index) => {
          const inWin = w.delivered.filter((d) => {
            const t = Number.isFinite(d.grantedAt) ? d.grantedAt : d.at;
            return t >= w0.start && t < w0.start + INTERVAL;
          });
          console.log(
            'DIAG p',
            index,
            inWin
              .map((d) => (Number.isFinite(d.grantedAt) ? `g${rel(d.grantedAt)}/s${rel(d.at)}` : `L${rel(d.at)}`))
              .join(' '),
          );
          console.log(
            'DIAG ev',
            index,
            w.events
              .filter((e) => e.at > killedAt - 100)
              .map(
                (e) =>
                  e.type +
                  '@' +
                  rel(e.at) +
                  ((e as { reason?: string }).reason ? `:${(e as { reason?: string }).reason}` : ''),
              )
              .join(' '),
          );
        });
      }
      expect(overNow).toEqual([]);
    }, 300_000);
  }
});
