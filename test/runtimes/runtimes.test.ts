import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { buildPackageOnce } from '../support/built-package.js';
import { overfullWindows, type RateConfig } from '../support/oracle.js';
import { connectRedis, deleteLimiters, REDIS_URL, uniqueName } from '../support/redis.js';
import {
  type Found,
  findRuntime,
  missingRuntimeIsAnError,
  RUNTIMES,
  type Runtime,
  runtimeNamed,
} from '../support/runtimes.js';

/**
 * The runtime matrix: the built package (dist/, through its package.json `exports`, as ESM, as users
 * import it) in Node (the one running the tests, 22 and 24), Bun, Deno and workerd (a Worker, a Durable
 * Object, and a Durable Object holding one throttler across requests), each installed from the registry
 * (test/support/runtimes.ts). Each runs scenario.mjs: 30 tasks at 10/200ms through the promise API, the
 * machine with a target actor, and the Redis store against the real Redis. Judged here by brute force
 * on the start times: every task ran once, and no window of 200 ms on the throttler's clock holds more
 * than 10 starts. The store's starts are on the host's clock, where the store promises the limit within
 * its grace (docs/guarantees.md): no window of 200 - 20 ms holds more than 10, unless Redis was farther
 * than the grace (a `storeSlow` event: strict on Redis' clock only, as documented); on Redis' clock,
 * exactly, the store's own audit (read every 100 ms) counts no window over. Time bounds are a process's timeout.
 */
const repo = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const TASKS = 30;
const TEN_PER_200MS: RateConfig = { overall: [{ limit: 10, interval: 200 }], channels: {} };
/** The store's default grantGraceMs for a throttler (src/redis/limiter-config.ts). */
const GRACE_MS = 20;
const TEN_PER_180MS: RateConfig = { overall: [{ limit: 10, interval: 200 - GRACE_MS }], channels: {} };
/** A build takes minutes on a busy machine, a first install of a runtime too: their own bounds. */
const SETUP_TIMEOUT_MS = 600_000;
/** One scenario takes 2-3 s; a busy machine, ten times that. */
const SCENARIO_TIMEOUT_MS = 60_000;

let app: string;
let redis: Redis;
const names: string[] = [];
/** Each runtime's binary or why there is none, looked for (and installed) all at once, beside the build. */
const found = new Map<string, Promise<Found>>();

beforeAll(async () => {
  for (const runtime of RUNTIMES) {
    const finding = findRuntime(repo, runtime).catch((error: unknown): Found => ({ missing: String(error) }));
    found.set(runtime.name, finding);
  }
  await buildPackageOnce(repo, SETUP_TIMEOUT_MS);
  // Installs load the machine: no scenario runs beside them (the store's host-clock check would suffer).
  await Promise.all(found.values());
  redis = await connectRedis();
  // A user's project: the package as installed (a link to this checkout, so its package.json `exports`
  // pick the files), its peers, and the scenario.
  app = mkdtempSync(join(tmpdir(), 'xstate-throttler-runtimes-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(repo, join(app, 'node_modules', 'xstate-throttler'), 'dir');
  for (const peer of ['xstate', 'ioredis']) {
    symlinkSync(join(repo, 'node_modules', peer), join(app, 'node_modules', peer), 'dir');
  }
  for (const file of ['scenario.mjs', 'main.mjs', 'worker.mjs']) {
    cpSync(join(import.meta.dirname, file), join(app, file));
  }
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (app) rmSync(app, { recursive: true, force: true });
  if (!redis) return;
  await deleteLimiters(redis, names);
  redis.disconnect();
});

/** The runtime's binary; without one, skips the test with the reason (an error under CI=true). */
async function binaryOf(runtime: Runtime, context: TestContext): Promise<string> {
  const runtimeFound = (await found.get(runtime.name)) ?? { missing: 'not looked for' };
  if ('binary' in runtimeFound) return runtimeFound.binary;
  const reason = `${runtime.name} ${runtime.version}: ${runtimeFound.missing}`;
  if (missingRuntimeIsAnError()) throw new Error(`CI=true and the runtime matrix cannot run ${reason}`);
  console.log(`Skipped ${reason}`);
  context.skip(reason);
  throw new Error('unreachable: skip() throws');
}

function limiterName(runtime: string): string {
  const name = uniqueName(`runtimes-${runtime}`);
  names.push(name);
  return name;
}

function resultOf(output: string): Record<string, unknown> {
  const line = output.split('\n').find((one) => one.startsWith('RESULT '));
  if (line === undefined) throw new Error(`no RESULT line in: ${output}`);
  return JSON.parse(line.slice('RESULT '.length));
}

interface Tasks {
  starts: number[];
  runs: number[];
  values: number[];
}

const each = Array.from({ length: TASKS }, (_, n) => n);
const deliveries = (starts: number[]) => starts.map((at) => ({ at, cost: 1, channel: undefined }));

/** No window of the rate over on the starts; a failure names the part and shows every start. */
function expectWithinRate(starts: number[], label: string, rate = TEN_PER_200MS): void {
  expect(starts, label).toHaveLength(TASKS);
  const shown = starts.map((at) => Math.round((at - (starts[0] ?? 0)) * 100) / 100);
  expect(overfullWindows(rate, deliveries(starts)), `${label}, starts from the first (ms): ${shown}`).toEqual([]);
}

/** Every task ran once and resolved its own value; no window of the rate over on its starts. */
function expectTasks(part: Tasks, label: string, rate = TEN_PER_200MS): void {
  expect(part.runs, label).toEqual(each.map(() => 1));
  expect(part.values, label).toEqual(each);
  expectWithinRate(part.starts, label, rate);
}

interface Scenario {
  runtime: string;
  promiseApi: Tasks;
  machine: { starts: number[]; received: number[] };
  store: Tasks & {
    slow: Array<{ roundTripMs: number; at: number }>;
    audit: { deliveries: number; windowsOver: number; gaps: number };
  };
}

function expectScenario(result: Scenario, runtime: string): void {
  expect(result.runtime).toBe(runtime);
  expectTasks(result.promiseApi, `${runtime}: the promise API`);
  // The target received each message once, in order (one channel, one priority).
  expect(result.machine.received, `${runtime}: the machine`).toEqual(each);
  expectWithinRate(result.machine.starts, `${runtime}: the machine`);
  const store = `${runtime}: the store`;
  expect(result.store.runs, store).toEqual(each.map(() => 1));
  expect(result.store.values, store).toEqual(each);
  // Redis farther than the grace (storeSlow): strict on Redis' clock only, as documented; seen here
  // with installs running beside, round trips of 25-80 ms, and a window of 11 in 180 ms on the host's.
  if (result.store.slow.length === 0)
    expectWithinRate(result.store.starts, `${store}, on the host's clock`, TEN_PER_180MS);
  else console.log(`${store}: storeSlow ${JSON.stringify(result.store.slow)}, judged on Redis' clock only`);
  const { audit } = result.store;
  expect(audit.windowsOver, `${runtime}: the store's audit on Redis' clock`).toBe(0);
  // Grants went through Redis; all of them seen, unless a read came late (a busy machine).
  expect(audit.deliveries).toBeGreaterThan(0);
  if (audit.gaps === 0) expect(audit.deliveries).toBe(TASKS);
}

/** How each runtime runs main.mjs, and the name the scenario reports for it. */
const COMMANDS: Record<string, { args: string[]; env?: Record<string, string>; reports: string }> = {
  node22: { args: [], reports: `node ${runtimeNamed('node22').version}` },
  node24: { args: [], reports: `node ${runtimeNamed('node24').version}` },
  bun: { args: [], reports: `bun ${runtimeNamed('bun').version}` },
  // Deno reads the project's package.json and node_modules; no update check (there is no network).
  deno: {
    args: ['run', '--allow-all'],
    env: { DENO_NO_UPDATE_CHECK: '1' },
    reports: `deno ${runtimeNamed('deno').version}`,
  },
};

async function scenarioIn(binary: string, args: string[], runtime: string, env: Record<string, string> = {}) {
  const { stdout } = await run(binary, [...args, 'main.mjs', REDIS_URL, limiterName(runtime)], {
    cwd: app,
    timeout: SCENARIO_TIMEOUT_MS,
    env: { ...process.env, DENO_DIR: join(app, '.deno'), ...env },
  });
  return resultOf(stdout) as unknown as Scenario;
}

describe('the built package in each runtime: the promise API, the machine and the Redis store', () => {
  it(`node ${process.versions.node} (the one running the tests)`, async () => {
    expectScenario(await scenarioIn(process.execPath, [], 'node'), `node ${process.versions.node}`);
  });

  for (const runtime of RUNTIMES.filter(({ name }) => name in COMMANDS)) {
    const command = COMMANDS[runtime.name] as (typeof COMMANDS)[string];
    it(
      `${runtime.name} ${runtime.version}`,
      async (context) => {
        const binary = await binaryOf(runtime, context);
        expectScenario(await scenarioIn(binary, command.args, runtime.name, command.env), command.reports);
      },
      SETUP_TIMEOUT_MS,
    );
  }
});

/** Node's built-in modules, imported by ioredis under bare names: workerd's are `node:` ones. */
const nodeBuiltins: Plugin = {
  name: 'node-builtins',
  setup(bundle) {
    const builtins = new Set(builtinModules);
    bundle.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, ({ path }) => {
      const bare = path.replace(/^node:/, '');
      return path.startsWith('node:') || builtins.has(bare) ? { path: `node:${bare}`, external: true } : undefined;
    });
    bundle.onResolve({ filter: /^cloudflare:/ }, ({ path }) => ({ path, external: true }));
  },
};

/**
 * workerd's configuration: the bundled Worker, its Durable Object class in memory, Node's modules (the
 * default from compatibility date 2026-08-04) for ioredis' `node:net`, and the network: Redis is on
 * 127.0.0.1, which workerd's default `internet` service does not reach (public addresses only).
 */
const WORKERD_CONFIG = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.bundle.js") ],
  compatibilityDate = "2026-11-01",
  durableObjectNamespaces = [ (className = "Throttled", uniqueKey = "xstate-throttler-runtimes") ],
  durableObjectStorage = (inMemory = void),
  bindings = [ (name = "THROTTLED", durableObjectNamespace = "Throttled") ],
);
`;

/** A listening socket on a free port, for workerd to accept on (`--socket-fd`): no port to race for. */
async function listeningSocket(): Promise<{ server: Server; port: number; fd: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  // Node's handle of the listening socket (POSIX): workerd is handed a copy, then Node's is closed.
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return { server, port, fd };
}

describe('workerd: a Worker, a Durable Object, and a Durable Object holding one throttler', () => {
  const runtime = runtimeNamed('workerd');
  it(
    `workerd ${runtime.version}`,
    async (context) => {
      const binary = await binaryOf(runtime, context);
      await build({
        entryPoints: [join(app, 'worker.mjs')],
        outfile: join(app, 'worker.bundle.js'),
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        mainFields: ['module', 'main'],
        conditions: ['workerd', 'worker', 'import'],
        // ioredis is CommonJS: its require() of Node's modules goes to workerd's own.
        banner: { js: "import { createRequire } from 'node:module'; const require = createRequire('/worker.js');" },
        plugins: [nodeBuiltins],
        logLevel: 'error',
      });
      writeFileSync(join(app, 'workerd.capnp'), WORKERD_CONFIG);
      const { server, port, fd } = await listeningSocket();
      const workerd = spawn(binary, ['serve', 'workerd.capnp', '--socket-fd', 'http=3'], {
        cwd: app,
        stdio: ['ignore', 'pipe', 'pipe', fd],
      });
      server.close();
      let logged = '';
      workerd.stdout?.on('data', (chunk) => (logged += chunk));
      workerd.stderr?.on('data', (chunk) => (logged += chunk));
      const exited = new Promise<never>((_, reject) =>
        workerd.on('exit', (code) => reject(new Error(`workerd exited (${code}): ${logged}`))),
      );
      // Its exit when the test kills it at the end is no error.
      exited.catch(() => undefined);
      // Connections wait in the socket's backlog until workerd accepts them: no polling for it to start.
      const get = async (path: string) => {
        const response = await Promise.race([
          fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(SCENARIO_TIMEOUT_MS) }),
          exited,
        ]);
        const text = await response.text();
        if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}\n${logged}`);
        return resultOf(text);
      };
      const query = (label: string) =>
        `?redis=${encodeURIComponent(REDIS_URL)}&name=${encodeURIComponent(limiterName(label))}`;
      try {
        expectScenario((await get(`/worker${query('worker')}`)) as unknown as Scenario, 'workerd');
        expectScenario((await get(`/object${query('object')}`)) as unknown as Scenario, 'workerd');
        const held = (await get('/held')) as unknown as Tasks & { runtime: string };
        expect(held.runtime).toBe('workerd');
        expectTasks(held, 'workerd: a Durable Object holding one throttler');
      } finally {
        workerd.kill();
      }
    },
    SETUP_TIMEOUT_MS,
  );
});
