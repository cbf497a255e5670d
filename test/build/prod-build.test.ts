import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackageOnce } from '../support/built-package.js';

/**
 * The built package, as users get it: `npm run build`, then imported by name
 * (ESM) and required (CJS) in a plain Node process, where xstate resolves to its
 * production build. Vitest resolves with the "development" condition and so
 * only ever runs xstate's development build, whose extra checks and warnings
 * can hide or cause differences. Real timers, generous bounds.
 */
const repo = join(import.meta.dirname, '..', '..');
let sandbox: string;

/** What each child process reports. */
interface CheckResult {
  module: 'esm' | 'cjs';
  resolved: { throttler: string; xstate: string };
  xstateFiles: string[];
  /** ms after the first QUEUE at which the target received messages 1, 2, 3. */
  arrivals: number[];
  /** Messages the throttler reported with targetLost after its target was stopped. */
  lost: number[];
  stateAfterLoss: { value: string; queued: number };
  /** What a throttler restored from the JSON of a persisted snapshot delivered. */
  restoredDelivered: number[];
  /** console.warn output while running: the development build warns on a send to a stopped actor. */
  warnings: string[];
  /** The promise API: ms after scheduling at which tasks 1-4 started, and how task 5 ended after stop(). */
  taskStarts: number[];
  stoppedTask: string;
  /** The promise API with timerPrecision 'exact': ms after scheduling at which tasks 1-3 started. */
  exactStarts: number[];
  /** The RxJS operator: values in the order emitted, and ms after subscribing at which each came. */
  operatorValues: number[];
  operatorTimes: number[];
}

/**
 * The rate of every throttler the checks run: 2 a window of a second. A busy machine stalls a process
 * for tens of milliseconds (at 2/50ms, two sent "at once" arrived 60 ms apart, and three scheduled
 * together were all let through at once); a window is a second, so that only a stall that long would.
 */
const WINDOW_MS = 1000;
const RATE = `2/${WINDOW_MS}ms`;
/** The window's own slack, for when a delivery is recorded against when it went. */
const EARLY_MS = WINDOW_MS / 10;
/** How long a check waits for what it expects, real time on a busy machine: an error, never an assertion. */
const WAIT_MS = 20_000;
/** How late the third may come after the first, at most: a loaded machine's slack. */
const LATE_MS = 10_000;

/**
 * The scenario both module formats run; `lib` is the built package, `operator` its xstate-throttler/rxjs
 * entry, `xstate` and `rxjs` the peer dependencies.
 */
const SCENARIO = `
const waitFor = async (done, timeoutMs) => {
  const giveUpAt = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > giveUpAt) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

async function scenario(lib, operator, xstate, rxjs) {
  const { createActor, fromCallback } = xstate;
  const { throttlerMachine, restoreThrottler, createThrottler } = lib;
  const { throttleQueue } = operator;
  const warnings = [];
  const originalWarn = console.warn;
  console.warn = (...args) => warnings.push(args.map(String).join(' '));
  const recorder = (log) =>
    createActor(fromCallback(({ receive }) => receive((message) => log.push({ n: message.n, at: performance.now() })))).start();

  const received = [];
  const target = recorder(received);
  const throttler = createActor(throttlerMachine, {
    input: { rate: '${RATE}', strategy: 'sliding-window', target },
  }).start();
  const lost = [];
  throttler.on('targetLost', (event) => lost.push(event.message.n));
  const startedAt = performance.now();
  for (let n = 1; n <= 3; n++) throttler.send({ type: 'QUEUE', message: { type: 'job', n } });
  await waitFor(() => received.length === 3, ${WAIT_MS});
  const arrivals = received.map((r) => r.at - startedAt);

  // A stopped target: the throttler must keep the message and say so (XState drops it silently).
  target.stop();
  throttler.send({ type: 'QUEUE', message: { type: 'job', n: 4 } });
  await waitFor(() => lost.length > 0, ${WAIT_MS});
  const snapshot = throttler.getSnapshot();
  const stateAfterLoss = { value: snapshot.value, queued: snapshot.context.counts.queued };
  // The development build warns about this send; the production build does not.
  target.send({ type: 'ping' });

  const saved = JSON.stringify(throttler.getPersistedSnapshot());
  throttler.stop();
  const restoredLog = [];
  const restoredTarget = recorder(restoredLog);
  const restored = restoreThrottler(JSON.parse(saved), { target: restoredTarget });
  await waitFor(() => restoredLog.length === 1, ${WAIT_MS});
  restored.stop();
  restoredTarget.stop();

  // Stopped with an hour's wait armed: if its timer outlived stop(), this process would not exit.
  const sleeperTarget = recorder([]);
  const sleeper = createActor(throttlerMachine, { input: { rate: '1/1h', target: sleeperTarget } }).start();
  for (let n = 1; n <= 3; n++) sleeper.send({ type: 'QUEUE', message: { type: 'job', n } });
  sleeper.stop();
  sleeperTarget.stop();

  // The promise API: 2 a window; tasks 1-2 at once, 3 a window later, 4 beside it; 5 waits and stop() rejects it.
  const tasks = createThrottler({ rate: '${RATE}', strategy: 'sliding-window' });
  const scheduledAt = performance.now();
  const taskStarts = await Promise.all([1, 2, 3].map(() => tasks.schedule(() => performance.now() - scheduledAt)));
  taskStarts.push(await tasks.schedule(() => performance.now() - scheduledAt));
  const fifth = tasks.schedule(() => 'started').then((value) => value, (error) => error.name);
  tasks.stop();
  const stoppedTask = await fifth;

  // timerPrecision 'exact' (preciseClock): the third task waits a whole window after the first, never less.
  const exact = createThrottler({ rate: '${RATE}', strategy: 'sliding-window', timerPrecision: 'exact' });
  const exactAt = performance.now();
  const exactStarts = await Promise.all([1, 2, 3].map(() => exact.schedule(() => performance.now() - exactAt)));
  exact.stop();

  // The RxJS operator: the same rate, three values, completion after the last.
  const subscribedAt = performance.now();
  const emitted = await new Promise((resolve, reject) => {
    const seen = [];
    rxjs
      .from([1, 2, 3])
      .pipe(throttleQueue({ rate: '${RATE}', strategy: 'sliding-window' }))
      .subscribe({ next: (value) => seen.push([value, performance.now() - subscribedAt]), error: reject, complete: () => resolve(seen) });
  });

  console.warn = originalWarn;
  return {
    arrivals,
    lost,
    stateAfterLoss,
    restoredDelivered: restoredLog.map((r) => r.n),
    warnings,
    taskStarts,
    stoppedTask,
    exactStarts,
    operatorValues: emitted.map(([value]) => value),
    operatorTimes: emitted.map(([, at]) => at),
  };
}
`;

const ESM_CHECK = `
import { createRequire } from 'node:module';
import * as lib from 'xstate-throttler';
import * as operator from 'xstate-throttler/rxjs';
import * as xstate from 'xstate';
import * as rxjs from 'rxjs';
${SCENARIO}
const require = createRequire(import.meta.url);
const result = await scenario(lib, operator, xstate, rxjs);
console.log('RESULT ' + JSON.stringify({
  module: 'esm',
  resolved: { throttler: import.meta.resolve('xstate-throttler'), xstate: import.meta.resolve('xstate') },
  // xstate's ESM entry re-exports its CommonJS build, so every file it loads shows in the require cache.
  xstateFiles: Object.keys(require.cache).filter((file) => file.includes('/xstate/dist/')),
  ...result,
}));
`;

const CJS_CHECK = `
const lib = require('xstate-throttler');
const operator = require('xstate-throttler/rxjs');
const xstate = require('xstate');
const rxjs = require('rxjs');
${SCENARIO}
scenario(lib, operator, xstate, rxjs).then((result) => {
  console.log('RESULT ' + JSON.stringify({
    module: 'cjs',
    resolved: { throttler: require.resolve('xstate-throttler'), xstate: require.resolve('xstate') },
    xstateFiles: Object.keys(require.cache).filter((file) => file.includes('/xstate/dist/')),
    ...result,
  }));
});
`;

/** The timeline entry point, loaded by its subpath: it renders, and its errors are the core's class. */
const TIMELINE_SCENARIO = `
function timelineScenario(timeline, core) {
  const events = [0, 10, 20, 1500].map((at) => ({ type: 'delivered', at, queuedAt: at, cost: 1, channel: undefined }));
  const svg = timeline.renderTimeline({ events, rate: '2/1s' });
  let error;
  try {
    timeline.renderTimeline({ events: [{ type: 'delivered', at: 0, queuedAt: 0, cost: 0 }] });
  } catch (caught) {
    error = caught;
  }
  return {
    startsAsSvg: svg.startsWith('<svg '),
    count: timeline.busiestWindows({ events, rate: '2/1s' })[0].count,
    errorIsCoreClass: error instanceof core.ThrottlerOptionError,
    errorMessage: error && error.message,
  };
}
`;

const TIMELINE_ESM = `
import * as timeline from 'xstate-throttler/timeline';
import * as core from 'xstate-throttler';
${TIMELINE_SCENARIO}
console.log('RESULT ' + JSON.stringify({ resolved: import.meta.resolve('xstate-throttler/timeline'), ...timelineScenario(timeline, core) }));
`;

const TIMELINE_CJS = `
const timeline = require('xstate-throttler/timeline');
const core = require('xstate-throttler');
${TIMELINE_SCENARIO}
console.log('RESULT ' + JSON.stringify({ resolved: require.resolve('xstate-throttler/timeline'), ...timelineScenario(timeline, core) }));
`;

/**
 * Runs a check script in its own Node process with NODE_ENV=production and
 * returns its report and how long the process took to exit after reporting
 * (a leaked timer would keep it alive).
 */
function runCheck(script: string, extraArgs: string[] = []): Promise<{ result: CheckResult; exitDelayMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...extraArgs, join(sandbox, script)], {
      cwd: sandbox,
      env: { ...process.env, NODE_ENV: 'production', NODE_OPTIONS: '' },
    });
    let stdout = '';
    let stderr = '';
    let reportedAt: number | undefined;
    const killer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (reportedAt === undefined && stdout.includes('RESULT ')) reportedAt = Date.now();
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined || reportedAt === undefined) {
        reject(new Error(`${script} exited with ${code ?? signal}\n${stdout}\n${stderr}`));
        return;
      }
      resolve({ result: JSON.parse(line.slice('RESULT '.length)), exitDelayMs: Date.now() - reportedAt });
    });
  });
}

/** The built `xstate-throttler/redis` entry point, imported or required by name, against the real Redis. */
const REDIS_SCENARIO = `
async function redisScenario(store, core, Redis, protocol) {
  const refused = (() => {
    try {
      store.createRedisStore({ redis: undefined, name: 'x' });
      return 'nothing';
    } catch (error) {
      return error instanceof core.ThrottlerOptionError ? error.option : String(error);
    }
  })();
  const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  const name = 'build-check-' + process.pid + '-' + Date.now();
  // Connecting and loading the scripts count against the first call's timeout: generous, for a busy machine
  // (the default 1 s ran out beside a second npm test).
  const shared = store.createRedisStore({ redis, name, commandTimeout: 10000 }).open({ strategy: 'sliding-window', rates: '2/1s' });
  const kinds = (await shared.reserve([{ cost: 1 }, { cost: 1 }])).map((outcome) => outcome.kind);
  await redis.del('xt:{' + name + '}:cfg', 'xt:{' + name + '}:all');
  await redis.quit();
  return { refused, kinds, unavailable: typeof protocol.StoreUnavailableError };
}
`;

const REDIS_ESM_CHECK = `
import * as store from 'xstate-throttler/redis';
import * as protocol from 'xstate-throttler/store';
import * as core from 'xstate-throttler';
import { Redis } from 'ioredis';
${REDIS_SCENARIO}
const result = await redisScenario(store, core, Redis, protocol);
console.log('RESULT ' + JSON.stringify({ resolved: import.meta.resolve('xstate-throttler/redis'), ...result }));
`;

const REDIS_CJS_CHECK = `
const store = require('xstate-throttler/redis');
const protocol = require('xstate-throttler/store');
const core = require('xstate-throttler');
const { Redis } = require('ioredis');
${REDIS_SCENARIO}
redisScenario(store, core, Redis, protocol).then((result) => {
  console.log('RESULT ' + JSON.stringify({ resolved: require.resolve('xstate-throttler/redis'), ...result }));
});
`;

/** The otel entry point with the real SDK: a promise API throttler's counts, and the core's error class. */
const OTEL_SCENARIO = `
async function otelScenario(otel, core, sdk) {
  class Reader extends sdk.MetricReader { async onForceFlush() {} async onShutdown() {} }
  const reader = new Reader();
  const provider = new sdk.MeterProvider({ readers: [reader] });
  const throttler = core.createThrottler({ rate: '${RATE}', strategy: 'sliding-window' });
  const handle = otel.instrumentThrottler(throttler, { meter: provider.getMeter('check'), name: 'check' });
  await Promise.all([1, 2, 3].map((n) => throttler.schedule(() => n)));
  const { resourceMetrics } = await reader.collect();
  const messages = {};
  for (const scope of resourceMetrics.scopeMetrics)
    for (const metric of scope.metrics)
      if (metric.descriptor.name === 'throttler.messages')
        for (const point of metric.dataPoints) messages[point.attributes['throttler.result']] = point.value;
  let error;
  try {
    otel.instrumentThrottler({}, { meter: provider.getMeter('check') });
  } catch (caught) {
    error = caught;
  }
  handle.stop();
  throttler.stop();
  await provider.shutdown();
  return { messages, errorIsCoreClass: error instanceof core.ThrottlerOptionError };
}
`;

const OTEL_ESM_CHECK = `
import * as otel from 'xstate-throttler/otel';
import * as core from 'xstate-throttler';
import * as sdk from '@opentelemetry/sdk-metrics';
${OTEL_SCENARIO}
console.log('RESULT ' + JSON.stringify({ resolved: import.meta.resolve('xstate-throttler/otel'), ...(await otelScenario(otel, core, sdk)) }));
`;

const OTEL_CJS_CHECK = `
const otel = require('xstate-throttler/otel');
const core = require('xstate-throttler');
const sdk = require('@opentelemetry/sdk-metrics');
${OTEL_SCENARIO}
otelScenario(otel, core, sdk).then((result) => {
  console.log('RESULT ' + JSON.stringify({ resolved: require.resolve('xstate-throttler/otel'), ...result }));
});
`;

/**
 * The build runs once, before every check of this file, and may take minutes on a busy machine (two
 * compilations on two shared cores took 1 min 57 s beside other work): its own bound, not the hooks'.
 */
const BUILD_TIMEOUT_MS = 600_000;

beforeAll(async () => {
  // Once for this run, whichever file asks first (the package install test needs it too).
  await buildPackageOnce(repo, BUILD_TIMEOUT_MS);
  // A project that depends on the package: node_modules links to this repo and to its xstate.
  sandbox = mkdtempSync(join(tmpdir(), 'xstate-throttler-build-'));
  mkdirSync(join(sandbox, 'node_modules'));
  symlinkSync(repo, join(sandbox, 'node_modules', 'xstate-throttler'), 'dir');
  symlinkSync(join(repo, 'node_modules', 'xstate'), join(sandbox, 'node_modules', 'xstate'), 'dir');
  symlinkSync(join(repo, 'node_modules', 'rxjs'), join(sandbox, 'node_modules', 'rxjs'), 'dir');
  writeFileSync(join(sandbox, 'check.mjs'), ESM_CHECK);
  writeFileSync(join(sandbox, 'check.cjs'), CJS_CHECK);
  writeFileSync(join(sandbox, 'timeline.mjs'), TIMELINE_ESM);
  writeFileSync(join(sandbox, 'timeline.cjs'), TIMELINE_CJS);
  symlinkSync(join(repo, 'node_modules', 'ioredis'), join(sandbox, 'node_modules', 'ioredis'), 'dir');
  writeFileSync(join(sandbox, 'redis-check.mjs'), REDIS_ESM_CHECK);
  writeFileSync(join(sandbox, 'redis-check.cjs'), REDIS_CJS_CHECK);
  symlinkSync(join(repo, 'node_modules', '@opentelemetry'), join(sandbox, 'node_modules', '@opentelemetry'), 'dir');
  writeFileSync(join(sandbox, 'otel-check.mjs'), OTEL_ESM_CHECK);
  writeFileSync(join(sandbox, 'otel-check.cjs'), OTEL_CJS_CHECK);
}, BUILD_TIMEOUT_MS + 10_000);

afterAll(() => {
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
});

describe('the built package in production mode', () => {
  it.each([
    ['esm', 'check.mjs', 'dist/esm/index.js', 'xstate.cjs.mjs'],
    ['cjs', 'check.cjs', 'dist/cjs/index.js', 'xstate.cjs.js'],
  ])(
    '%s: loads the build and xstate production, throttles on real timers, exits when stopped',
    async (format, script, entry, xstateEntry) => {
      const { result, exitDelayMs } = await runCheck(script);
      expect(result.module).toBe(format);
      expect(result.resolved.throttler).toMatch(new RegExp(`/${entry.replaceAll('.', '\\.')}$`));
      expect(result.resolved.xstate).toMatch(
        new RegExp(`/node_modules/xstate/dist/${xstateEntry.replaceAll('.', '\\.')}$`),
      );
      expect(result.xstateFiles).toContain(join(repo, 'node_modules/xstate/dist/xstate.cjs.js'));
      expect(result.xstateFiles.filter((file) => file.includes('.development.'))).toEqual([]);

      // 2 a window, sliding: two at once (the second not held for the window), the third when the first leaves it.
      const [first, second, third] = result.arrivals as [number, number, number];
      expect(second - first).toBeLessThan(WINDOW_MS - EARLY_MS);
      expect(third - first).toBeGreaterThanOrEqual(WINDOW_MS - EARLY_MS);
      expect(third - first).toBeLessThan(LATE_MS);

      expect(result.lost).toEqual([4]);
      expect(result.stateAfterLoss).toEqual({ value: 'idle', queued: 1 });
      expect(result.restoredDelivered).toEqual([4]);
      expect(result.warnings).toEqual([]);

      const [task1, task2, task3, task4] = result.taskStarts as [number, number, number, number];
      expect(task2 - task1).toBeLessThan(WINDOW_MS - EARLY_MS);
      expect(task3 - task1).toBeGreaterThanOrEqual(WINDOW_MS - EARLY_MS);
      expect(task4).toBeGreaterThanOrEqual(task3);
      expect(result.stoppedTask).toBe('ThrottlerStoppedError');
      const [exact1, , exact3] = result.exactStarts as [number, number, number];
      expect(exact3 - exact1).toBeGreaterThanOrEqual(WINDOW_MS);
      expect(exact3 - exact1).toBeLessThan(LATE_MS);

      expect(result.operatorValues).toEqual([1, 2, 3]);
      const [value1, , value3] = result.operatorTimes as [number, number, number];
      expect(value3 - value1).toBeGreaterThanOrEqual(WINDOW_MS - EARLY_MS);
      expect(value3 - value1).toBeLessThan(LATE_MS);
      expect(exitDelayMs).toBeLessThan(5_000);
    },
  );

  it.each([
    ['timeline.mjs', 'dist/esm/timeline/index.js'],
    ['timeline.cjs', 'dist/cjs/timeline/index.js'],
  ])(
    '%s: xstate-throttler/timeline loads from its own subpath, renders, and throws the core error class',
    async (script, entry) => {
      const { result } = await runCheck(script);
      const report = result as unknown as Record<string, unknown>;
      expect(report.resolved).toMatch(new RegExp(`/${entry.replaceAll('.', '\\.')}$`));
      expect(report).toMatchObject({
        startsAsSvg: true,
        count: 3,
        errorIsCoreClass: true,
        errorMessage: 'events[0].cost must be a positive integer, or a map of dimension to cost, got 0',
      });
    },
  );

  it.each([
    ['esm', 'redis-check.mjs', 'dist/esm/redis/index.js'],
    ['cjs', 'redis-check.cjs', 'dist/cjs/redis/index.js'],
  ])(
    '%s: xstate-throttler/redis loads, shares the core error class, reserves in Redis, and exits',
    async (_, script, entry) => {
      const { result, exitDelayMs } = await runCheck(script);
      const redisResult = result as unknown as {
        resolved: string;
        refused: string;
        kinds: string[];
        unavailable: string;
      };
      expect(redisResult.resolved).toMatch(new RegExp(`/${entry.replaceAll('.', '\\.')}$`));
      expect(redisResult.refused).toBe('redis');
      expect(redisResult.kinds).toEqual(['granted', 'granted']);
      expect(redisResult.unavailable).toBe('function');
      expect(exitDelayMs).toBeLessThan(5_000);
    },
  );

  it.each([
    ['otel-check.mjs', 'dist/esm/otel/index.js'],
    ['otel-check.cjs', 'dist/cjs/otel/index.js'],
  ])('%s: xstate-throttler/otel loads from its own subpath and counts through the real SDK', async (script, entry) => {
    const { result, exitDelayMs } = await runCheck(script);
    const report = result as unknown as Record<string, unknown>;
    expect(report.resolved).toMatch(new RegExp(`/${entry.replaceAll('.', '\\.')}$`));
    // 2 a window: two start inside schedule, the third waits for the window.
    expect(report).toMatchObject({ messages: { delivered: 3, queued: 1 }, errorIsCoreClass: true });
    expect(exitDelayMs).toBeLessThan(5_000);
  });

  it('control: with the "development" condition the same check loads the development build, which warns', async () => {
    const { result } = await runCheck('check.mjs', ['--conditions=development']);
    expect(result.xstateFiles.some((file) => file.includes('.development.'))).toBe(true);
    expect(result.warnings.some((warning) => warning.includes('sent to stopped actor'))).toBe(true);
    expect(result.restoredDelivered).toEqual([4]);
  });
});
