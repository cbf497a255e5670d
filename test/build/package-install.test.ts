import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRelative, linksOf } from '../../scripts/markdown-links.js';
import { rewriteForPackage } from '../../scripts/pack-docs.js';
import { buildPackageOnce } from '../support/built-package.js';

/**
 * The package as a user installs it: `npm pack`, then `npm install` of the tarball in fresh projects.
 * - A promise-API project installs xstate and this package only: rxjs (an optional peer) is neither
 *   installed nor loaded, and the operator's entry is the one that would need it.
 * - A TypeScript project type-checks a consumer of every entry point against the packed declarations
 *   under `node10`, `node16` (ESM and CommonJS) and `bundler` resolution, with `strict` and
 *   `exactOptionalPropertyTypes` (passing `undefined` for options it leaves out). It hands what one entry
 *   makes to another's functions (a store, strategies, a lean throttler, the operator's actor, server
 *   limits): under each resolution every entry must load the same declaration files, or a class's private
 *   members make two types of one (TS2322, "separate declarations of a private property").
 * - Every entry point package.json exports loads with `import` and with `require`, with the same names.
 * - arethetypeswrong and publint find nothing in the tarball (both run offline, from node_modules).
 * - The packed README is the repository's with its links rewritten for the registry page (absolute, to
 *   this version's packed files; scripts/pack-docs.ts), and the pack leaves the repository's pages as
 *   they were.
 * - The tarball holds no source map and no file outside dist/, the docs the README links to (docs/,
 *   examples/, bench/README.md), README, CHANGELOG, LICENSE.
 * Installs come from npm's cache where it has the packages (`--prefer-offline`).
 */
const repo = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const version = (name: string): string =>
  JSON.parse(readFileSync(join(repo, 'node_modules', name, 'package.json'), 'utf8')).version;

/** The build and the installs may take minutes on a busy machine: their own bound, not the hooks'. */
const SETUP_TIMEOUT_MS = 600_000;
/** One compilation, with every declaration file checked, took 23 s here beside other work. */
const TSC_TIMEOUT_MS = 180_000;
let sandbox: string;
let tarball: string;
/** README.md and docs/*.md of the repository, right before and right after `npm pack`. */
let pagesBeforePack: Map<string, string>;
let pagesAfterPack: Map<string, string>;
const readPages = () =>
  new Map(
    ['README.md', ...readdirSync(join(repo, 'docs')).map((name) => `docs/${name}`)]
      .filter((page) => page.endsWith('.md'))
      .map((page) => [page, readFileSync(join(repo, page), 'utf8')]),
  );
const light = () => join(sandbox, 'light');
const typed = () => join(sandbox, 'typed');

async function npm(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('npm', [...args, '--no-audit', '--no-fund'], { cwd, timeout: SETUP_TIMEOUT_MS });
  return stdout;
}

async function install(project: string, packages: string[], type: 'module' | 'commonjs'): Promise<void> {
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type }));
  await npm(project, 'install', '--prefer-offline', '--ignore-scripts', tarball, ...packages);
}

/** A promise-API app: three tasks at 2/1s (a window long enough that a busy machine's pauses cannot blur it), and what it could load. */
const LIGHT_ESM = `
import { createRequire } from 'node:module';
import { createThrottler } from 'xstate-throttler';
const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window' });
const startedAt = performance.now();
const starts = await Promise.all([1, 2, 3].map(() => throttler.schedule(() => performance.now() - startedAt)));
throttler.stop();
// The lean entry with a strategy value, and its refusal of a name with what to import instead.
const { createThrottler: leanThrottler } = await import('xstate-throttler/lean');
const { tokenBucket } = await import('xstate-throttler/strategies');
const leanOne = leanThrottler({ rate: '1/1s', strategy: tokenBucket });
const lean = await leanOne.schedule(() => 'lean');
leanOne.stop();
let leanRefusal;
try {
  leanThrottler({ rate: '1/1s', strategy: 'token-bucket' });
} catch (error) {
  leanRefusal = error.message;
}
let operator;
try {
  await import('xstate-throttler/rxjs');
  operator = 'loaded';
} catch (error) {
  operator = error.code + ' ' + error.message.split('\\n')[0];
}
const require = createRequire(import.meta.url);
console.log('RESULT ' + JSON.stringify({ starts, lean, leanRefusal, operator, cached: Object.keys(require.cache) }));
`;

const LIGHT_CJS = `
const { createThrottler } = require('xstate-throttler');
const lean = require('xstate-throttler/lean');
const { defineStrategy, slidingWindow } = require('xstate-throttler/strategies');
const throttler = createThrottler({ rate: '2/50ms', strategy: 'sliding-window' });
const leanThrottler = lean.createThrottler({ rate: '2/50ms', strategy: slidingWindow });
// A strategy of one's own (docs/strategies.md): one delivery per 25 ms.
const spaced = defineStrategy({
  name: 'spaced',
  createPolicy: () => {
    let next = 0;
    return { earliestDelivery: (now) => Math.max(now, next), recordDelivery: (at) => { next = at + 25; } };
  },
});
const ownThrottler = createThrottler({ rate: '2/50ms', strategy: spaced });
const all = [throttler, leanThrottler, ownThrottler].map((one) => Promise.all([1, 2, 3].map((n) => one.schedule(() => n))));
Promise.all(all).then(([values, leanValues, ownValues]) => {
  throttler.stop();
  leanThrottler.stop();
  ownThrottler.stop();
  console.log('RESULT ' + JSON.stringify({ values, leanValues, ownValues, cached: Object.keys(require.cache) }));
});
`;

/** Uses every entry point; with exactOptionalPropertyTypes, passes undefined where an option is left out. */
const CONSUMER = `
import { metrics } from '@opentelemetry/api';
import { createActor, fromCallback } from 'xstate';
import {
  auditThrottler,
  createThrottler,
  restoreThrottler,
  type ScheduleOptions,
  type Throttler,
  type ThrottlerActor,
  type ThrottlerOptions,
  throttlerMachine,
} from 'xstate-throttler';
import { createRedisStore, type RedisClientLike, type RedisStoreOptions } from 'xstate-throttler/redis';
import { createMemoryStore, type MemoryStoreOptions, type SharedStore, StoreConflictError } from 'xstate-throttler/store';
import { throttleQueue, type ThrottleQueueOptions } from 'xstate-throttler/rxjs';
import { applyServerLimits, type ReadServerLimitsOptions, readServerLimits, serverLimits } from 'xstate-throttler/server-limits';
import { recordTimeline, renderTimeline, type TimelineOptions } from 'xstate-throttler/timeline';
import {
  type InstrumentOptions,
  instrumentThrottler,
  THROTTLER_METRICS,
  type ThrottlerInstrumentation,
} from 'xstate-throttler/otel';
import { compare, type ReplayConfiguration, type ReplayReport, recordActor, recordThrottler, replay } from 'xstate-throttler/replay';
import { createThrottler as createLean, restoreThrottler as restoreLean, throttlerMachine as leanMachine } from 'xstate-throttler/lean';
import {
  defineStrategy,
  slidingWindow,
  type Strategy,
  type StrategyDefinition,
  type StrategyPolicy,
  timer,
  tokenBucket,
  warmingUp,
} from 'xstate-throttler/strategies';

const maybe = (): number | undefined => undefined;
const options: ThrottlerOptions = { rate: '10/1s', strategy: undefined, capacity: maybe(), store: undefined };
const throttler = createThrottler({ ...options, serverLimits: serverLimits(undefined, { maxPause: undefined }) });
const taskOptions: ScheduleOptions = { priority: maybe(), signal: undefined, maxWait: undefined };
export const result: Promise<number> = throttler.schedule(() => 1, taskOptions);

const target = createActor(fromCallback(() => undefined)).start();
export const actor = createActor(throttlerMachine, { input: { rate: '1/1s', target, keys: undefined } });

const operatorOptions: ThrottleQueueOptions<string> = { rate: '5/1s', scheduler: undefined, cost: undefined };
export const operator = throttleQueue(operatorOptions);

const readOptions: ReadServerLimitsOptions = { maxPause: undefined, status: maybe() };
export const limits = readServerLimits({ 'retry-after': '1' }, readOptions);

const storeOptions: Omit<RedisStoreOptions, 'redis'> = { name: 'api', commandTimeout: undefined };
export const store = (redis: RedisClientLike) => createRedisStore({ ...storeOptions, redis });

const timelineOptions: TimelineOptions = { width: maybe(), layout: undefined };
export const svg: string = renderTimeline({ events: [], rate: '1/1s' }, timelineOptions);

const replayConfiguration: ReplayConfiguration = { rate: '2/1s', name: undefined, serverAnswers: undefined, keys: undefined };
export const replayed: Promise<ReplayReport> = replay('', replayConfiguration);
export const compared = compare(['{}'], [replayConfiguration], { onDecision: undefined });
const recorded = recordThrottler(throttler, { to: () => undefined, configuration: options, maxPending: maybe() });
export const recordedTask: Promise<number> = recorded.schedule(() => 1, taskOptions);
export const recordedActor = recordActor(actor, { to: { write: () => true }, configuration: {}, awaitEnds: undefined, outcome: undefined });

const instrumentOptions: InstrumentOptions = { meter: metrics.getMeter('consumer'), name: undefined, channels: undefined };
export const instrumentation = instrumentThrottler(throttler, instrumentOptions);
export const messagesName: 'throttler.messages' = THROTTLER_METRICS.messages.name;

const strategy: Strategy = slidingWindow;
export const leanThrottler = createLean({ rate: '2/1s', strategy, capacity: maybe(), store: undefined });
export const leanActor = createActor(leanMachine, { input: { rate: '1/1s', strategy: timer, target } });
export const restoredLean = (saved: unknown) => restoreLean(saved, { strategy: tokenBucket, target: undefined });
export const byValue = createThrottler({ rate: '1/1s', strategy: warmingUp, warmup: '1s' });

// A strategy of one's own (docs/strategies.md): the policy contract implemented as a class, every entry takes it.
class Spaced implements StrategyPolicy {
  private next = 0;
  constructor(private readonly interval: number) {}
  earliestDelivery(now: number): number {
    return Math.max(now, this.next);
  }
  recordDelivery(at: number): void {
    this.next = at + this.interval;
  }
  save(shift: number): unknown {
    return { next: this.next + shift };
  }
  load(saved: unknown, shift: number): void {
    this.next = (saved as { next: number }).next + shift;
  }
}
const definition: StrategyDefinition<'spaced'> = {
  name: 'spaced',
  createPolicy: (rates, _now) => new Spaced(Math.max(...rates.map(({ limit, interval }) => interval / limit))),
  leases: undefined,
};
const spaced: Strategy<'spaced'> = defineStrategy(definition);
export const ownThrottler = createThrottler({ rate: '2/1s', strategy: spaced, channels: { a: '1/1s' } });
export const ownLean = createLean({ rate: '2/1s', strategy: spaced });
export const ownRestored = (saved: unknown) => restoreThrottler(saved, { strategy: spaced, target });
export const ownOperator = throttleQueue<string>({ rate: '5/1s', strategy: spaced });
export const ownErrors = ownThrottler.actor.on('strategyError', ({ error, at }) => [error.message, at]);

// What one entry point makes, handed to another's functions.
declare const redis: RedisClientLike;
const sharedStore = createRedisStore({ name: 'api', redis });
export const withStore = createThrottler({ rate: '10/1s', store: sharedStore, strategy: tokenBucket });
export const machineWithStore = createActor(throttlerMachine, {
  input: { rate: '10/1s', store: sharedStore, strategy: slidingWindow, target },
});
export const restoredWithStore = (saved: unknown) => restoreThrottler(saved, { store: sharedStore, target });
const memoryOptions: MemoryStoreOptions = { name: 'api', clock: undefined, grantGraceMs: maybe() };
const memoryStore: SharedStore = createMemoryStore(memoryOptions);
export const withMemoryStore = createThrottler({ rate: '10/1s', store: memoryStore, strategy: slidingWindow });
export const leanWithMemoryStore = createLean({ rate: '10/1s', strategy: tokenBucket, store: memoryStore });
export const redisIsShared: SharedStore = sharedStore;
export const conflict = (error: unknown) => error instanceof StoreConflictError;
const leanWithStore = createLean({ rate: '10/1s', strategy: timer, store: sharedStore, serverLimits: serverLimits() });
export const leanAsMain: Throttler = leanWithStore;
export const leanActorAsMain: ThrottlerActor = leanActor;
export const operatorWithStore = throttleQueue<string>({
  rate: '5/1s',
  store: sharedStore,
  strategy: warmingUp,
  warmup: '1s',
  onThrottler: (operatorActor) => {
    const asMain: ThrottlerActor = operatorActor;
    auditThrottler(asMain);
    recordTimeline(operatorActor, { rate: '5/1s' });
    return instrumentThrottler(operatorActor, { meter: metrics.getMeter('operator') }).stop;
  },
});
const leanInstrumentation: ThrottlerInstrumentation = instrumentThrottler(leanWithStore, {
  meter: metrics.getMeter('lean'),
});
leanInstrumentation.stop();
export const applied = applyServerLimits(withStore, limits);
for (const event of limits.events) actor.send(event);
export const leanApplied = applyServerLimits(leanActor, limits);

// @ts-expect-error: a rate must be a string or a Rate, and the error names it at compile time too
createThrottler({ rate: 5 });
`;

/** The entry points as package.json exports them, `xstate-throttler/package.json` aside. */
const packageJson = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
const ENTRIES = Object.keys(packageJson.exports)
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => `xstate-throttler${subpath.slice(1)}`);

/** Each entry point's names, imported (ESM) or required (CommonJS) in a plain Node process. */
const NAMES_ESM = `
const names = {};
for (const entry of ${JSON.stringify(ENTRIES)}) names[entry] = Object.keys(await import(entry)).sort();
console.log('RESULT ' + JSON.stringify(names));
`;
const NAMES_CJS = `
const names = {};
for (const entry of ${JSON.stringify(ENTRIES)}) {
  names[entry] = Object.keys(require(entry)).filter((name) => name !== '__esModule').sort();
}
console.log('RESULT ' + JSON.stringify(names));
`;

/** Each resolution a TypeScript project may use, with the module kind it goes with. */
const RESOLUTIONS = [
  { name: 'node10', file: 'consumer.ts', options: ['--module', 'commonjs', '--moduleResolution', 'node10'] },
  { name: 'node16, ESM', file: 'consumer.mts', options: ['--module', 'node16', '--moduleResolution', 'node16'] },
  { name: 'node16, CommonJS', file: 'consumer.cts', options: ['--module', 'node16', '--moduleResolution', 'node16'] },
  { name: 'bundler', file: 'consumer.ts', options: ['--module', 'esnext', '--moduleResolution', 'bundler'] },
];

beforeAll(async () => {
  // Once for this run, whichever file asks first (the built package test needs it too).
  await buildPackageOnce(repo, SETUP_TIMEOUT_MS);
  sandbox = mkdtempSync(join(tmpdir(), 'xstate-throttler-install-'));
  pagesBeforePack = readPages();
  const packed = JSON.parse(await npm(repo, 'pack', '--json', '--pack-destination', sandbox));
  pagesAfterPack = readPages();
  tarball = join(sandbox, packed[0].filename);
  await install(light(), [`xstate@${version('xstate')}`], 'module');
  writeFileSync(join(light(), 'app.mjs'), LIGHT_ESM);
  writeFileSync(join(light(), 'app.cjs'), LIGHT_CJS);
  const typedPackages = ['xstate', 'rxjs', 'ioredis', '@opentelemetry/api', '@types/node'].map(
    (name) => `${name}@${version(name)}`,
  );
  await install(typed(), typedPackages, 'commonjs');
  for (const { file } of RESOLUTIONS) writeFileSync(join(typed(), file), CONSUMER);
  writeFileSync(join(typed(), 'names.mjs'), NAMES_ESM);
  writeFileSync(join(typed(), 'names.cjs'), NAMES_CJS);
}, SETUP_TIMEOUT_MS * 3);

afterAll(() => {
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
});

async function node(cwd: string, script: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [script], {
    cwd,
    timeout: 60_000,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`${script} reported nothing:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length));
}

describe('the packed package', () => {
  it('holds dist/, the docs the README links to, README.md, CHANGELOG.md, LICENSE and package.json only, without source maps', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(
      files.filter(
        (file) =>
          !/^package\/(dist\/|docs\/|examples\/|bench\/README\.md$|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(
            file,
          ),
      ),
    ).toEqual([]);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    const withMapComment: string[] = [];
    const dist = join(light(), 'node_modules', 'xstate-throttler', 'dist');
    for (const path of readdirSync(dist, { recursive: true }) as string[]) {
      if (/\.(c|m)?js$|\.d\.ts$/.test(path) && readFileSync(join(dist, path), 'utf8').includes('sourceMappingURL')) {
        withMapComment.push(path);
      }
    }
    expect(withMapComment).toEqual([]);
  });
});

describe('the packed README, as the registry page shows it', () => {
  it("is the repository's with its links made absolute, to this version's packed files; the pack leaves the repository's pages as they were", async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = new Set(
      stdout
        .split('\n')
        .filter(Boolean)
        .map((file) => file.replace(/^package\//, '')),
    );
    const { name, version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    const packedReadme = (await run('tar', ['-xzOf', tarball, 'package/README.md'], { maxBuffer: 8 << 20 })).stdout;
    const original = pagesBeforePack.get('README.md') as string;
    expect(packedReadme).toBe(rewriteForPackage('README.md', original, { name, version, files }));
    const relative = linksOf(packedReadme)
      .map(({ target }) => target)
      .filter((target) => isRelative(target) && !target.startsWith('#'));
    expect(relative).toEqual([]);
    const cdn = `https://cdn.jsdelivr.net/npm/${name}@${version}/`;
    const onCdn = linksOf(packedReadme).filter(({ target }) => target.startsWith(cdn));
    expect(onCdn.length).toBeGreaterThan(50);
    expect(
      onCdn.filter(
        ({ target }) => !files.has(target.slice(cdn.length).split('#')[0] as string) && !target.endsWith('/'),
      ),
    ).toEqual([]);
    expect(pagesAfterPack).toEqual(pagesBeforePack);
  });
});

describe('the packed package, checked by arethetypeswrong and publint', () => {
  it("arethetypeswrong: under every resolution each entry point's types describe the file it loads", async () => {
    const attw = join(repo, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
    // --no-definitely-typed: the package has its own types, and nothing is fetched (offline after npm ci).
    const args = [attw, '--no-definitely-typed', '--no-color', '--no-emoji', '--format', 'ascii', tarball];
    const report = await run(process.execPath, args, { timeout: TSC_TIMEOUT_MS }).then(
      () => 'no problems',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
    );
    expect(report).toBe('no problems');
  });

  it('publint: nothing to suggest, warn or refuse', async () => {
    const { publint } = await import('publint');
    const { formatMessage } = await import('publint/utils');
    const packed = readFileSync(tarball);
    const { messages, pkg } = await publint({
      pack: { tarball: packed.buffer.slice(packed.byteOffset, packed.byteOffset + packed.byteLength) },
      level: 'suggestion',
      strict: true,
    });
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg) ?? message.code}`)).toEqual([]);
  });
});

describe('every entry point package.json exports', () => {
  it('loads with import and with require, with the same names', async () => {
    const imported = (await node(typed(), 'names.mjs')) as Record<string, string[]>;
    const required = (await node(typed(), 'names.cjs')) as Record<string, string[]>;
    expect(Object.keys(imported)).toEqual(ENTRIES);
    for (const entry of ENTRIES) expect(imported[entry]?.length, entry).toBeGreaterThan(0);
    expect(required).toEqual(imported);
  });

  it('is one the TypeScript consumer imports', () => {
    const imported = [...CONSUMER.matchAll(/from '(xstate-throttler[^']*)'/g)].map((match) => match[1]);
    expect(ENTRIES.filter((entry) => !imported.includes(entry))).toEqual([]);
  });
});

describe('a promise-API project with xstate and this package only', () => {
  it('installs without rxjs (an optional peer) and without ioredis', () => {
    expect(existsSync(join(light(), 'node_modules', 'xstate'))).toBe(true);
    expect(existsSync(join(light(), 'node_modules', 'rxjs'))).toBe(false);
    expect(existsSync(join(light(), 'node_modules', 'ioredis'))).toBe(false);
    expect(readFileSync(join(light(), 'package-lock.json'), 'utf8')).not.toMatch(/node_modules\/(rxjs|ioredis)"/);
  });

  it('ESM: runs createThrottler, and the lean one with a strategy value, without loading rxjs; the operator entry is what would need it (control)', async () => {
    const result = (await node(light(), 'app.mjs')) as {
      starts: number[];
      lean: string;
      leanRefusal: string;
      operator: string;
      cached: string[];
    };
    const [first, second, third] = result.starts as [number, number, number];
    // Two at once, the third once the first has left the window (never early; a busy machine only delays it).
    expect(second - first).toBeLessThan(900);
    expect(third - first).toBeGreaterThanOrEqual(995);
    expect(result.operator).toMatch(/^ERR_MODULE_NOT_FOUND .*'rxjs'/);
    expect(result.lean).toBe('lean');
    expect(result.leanRefusal).toContain('import { tokenBucket } from "xstate-throttler/strategies"');
    expect(result.cached.filter((file) => file.includes('rxjs'))).toEqual([]);
  });

  it('CommonJS: runs createThrottler, the lean one with a strategy value and one of its own, without loading rxjs', async () => {
    const result = (await node(light(), 'app.cjs')) as {
      values: number[];
      leanValues: number[];
      ownValues: number[];
      cached: string[];
    };
    expect(result.values).toEqual([1, 2, 3]);
    expect(result.leanValues).toEqual([1, 2, 3]);
    expect(result.ownValues).toEqual([1, 2, 3]);
    expect(result.cached.some((file) => file.includes('/node_modules/xstate-throttler/dist/cjs/'))).toBe(true);
    expect(result.cached.filter((file) => file.includes('rxjs'))).toEqual([]);
  });
});

describe('a TypeScript consumer of every entry point, strict, with exactOptionalPropertyTypes', () => {
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  it.each(RESOLUTIONS)(
    'type-checks against the packed declarations under $name resolution',
    async ({ file, options }) => {
      const args = [
        tsc,
        '--noEmit',
        '--strict',
        '--exactOptionalPropertyTypes',
        '--target',
        'es2022',
        '--types',
        'node',
      ];
      const output = await run(process.execPath, [...args, ...options, file], {
        cwd: typed(),
        timeout: TSC_TIMEOUT_MS,
      }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      // One diagnostic per unindented line. xstate's own declarations do not compile with
      // exactOptionalPropertyTypes (such a project sets skipLibCheck for them); this package's must.
      const diagnostics = output.split(/\n(?=\S)/).filter((text) => text.trim() !== '');
      expect(diagnostics.filter((text) => !text.startsWith('node_modules/xstate/'))).toEqual([]);
    },
    TSC_TIMEOUT_MS + 10_000,
  );
});
