// What each entry point costs an app that bundles it: the entry (or one name of it, as an app that
// imports only that name gets it after tree-shaking) bundled, minified, with the peer dependencies left
// out (they are in the app's bundle anyway), then gzipped. `npm run size` prints the table (`-- --why`
// adds the modules that weigh most in each); test/build/bundle-size.test.ts holds each to its budget.
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface SizedEntry {
  /** What an app imports, as the README's size table names it. */
  readonly name: string;
  /** The module the app's bundler starts from (the names it imports). */
  readonly source: string;
  /** 'browser' refuses Node built-ins, so a node: import on any path of a browser entry fails the build. */
  readonly platform: 'browser' | 'node';
  /** Left out of the bundle: the peer dependencies (and, for Node, its built-ins). */
  readonly external: readonly string[];
  /** The gzipped budget in bytes; raise it only with a reason in the comment on ENTRIES. */
  readonly budget: number;
}

/**
 * Why the core budgets are what they are. The whole main entry was 28.5 kB with the operator in it (27.8
 * measured): 18.7 kB before the store seam, priorities, deadlines and keyed limits; 24.3 kB before
 * issue 16's lease and quiet paths (+1.0 kB and +0.7 kB, for 4x the promise API's throughput and 2.4x
 * the machine's per-event rate, bench/README.md W1); 26.0 kB before issue 22's hardening and issue 23's
 * surface (hostile answer objects checked by descriptor, the machine's own events marked and refused
 * from outside, the store's conflict / quarantine / slow-link events, the adapters' message check,
 * stop() without side effects, the timer's take-over on SET_RATE). Issue 24 moved the operator to its
 * own entry, and measured what a one-strategy app pays for the other strategies: 1.7 kB gzipped
 * (timer, token bucket, warm-up and their smooth-rate base, for an app on the sliding window alone),
 * which no string-named strategy can shed: the name is chosen at run time, from options, a saved
 * snapshot or a SET_RATE, so every strategy it may name must be in the bundle. Issue 25's audit of every
 * window (engine/audit/: fed by every delivery, whatever the clearance) adds 1.2 kB to each entry that
 * holds the machine (27.3 -> 28.6 kB for every name); its metrics (the queued and dequeued events, each
 * policy's windowUse, the store's traffic counts) 0.4 kB more (29.0 kB). Issue 24's everyday promise
 * API (+4.4 kB measured before the audit: size/pending/onIdle and the task events, clear(), a task's
 * { signal }, timeout and retry with its backoff and budget, stop({ drain }), option names checked with
 * what was meant (option-names.ts), the hold for a target set before it started (target-start.ts), a
 * task's option names checked and onHandlerError): most of it in the promise API's files, which the
 * machine-only entry leaves out (it grows 1.4 kB: the target hold, durations and option names in the
 * machine's input). Measured together: 34.3 kB every name, 31.8 createThrottler, 24.0 the machine.
 * Grown since to 34.5, 32.0 and 24.3 (the store's and the audit's later work). Then strategies became
 * values (xstate-throttler/strategies): the main entry resolves a name to one, and also takes one, which
 * costs it 0.4 kB every name, 0.3 createThrottler and 0.3 the machine (the check of a value, the lookup
 * each entry hands the options, the machine built by a factory, restoreThrottler's `strategy`): 34.9, 32.3
 * and 24.5 measured, each budget raised by that much. What it buys is xstate-throttler/lean, whose
 * functions know no strategy by name, so that an app bundles only the strategy it imports: 30.1 kB for
 * createThrottler with the sliding window alone (2.3 kB less than the main entry's createThrottler, 1.7 of
 * it the other strategies' policies), 22.2 for the machine with it (test/build/bundle-size.test.ts checks
 * that no other strategy's code is in either).
 * The limits of the API era then added, measured together at 40.0 kB every name, 37.3 createThrottler,
 * 29.2 the machine (each budget raised by the growth, with 0.4 kB of room): rates and costs in dimensions
 * (requests and tokens at once: src/rate/cost.ts, policies/dimensions.ts, costs resolved into vectors in
 * the engine, about 2.3 kB), estimate-then-settle (ACTUAL_COST and schedule's settle: the settle book, the
 * delivery log's Fenwick tree so an old entry's cost changes in O(log n), the audit's re-judging, about
 * 1.7 kB) and weighted fair shares (fair-share.ts and its options, about 0.7 kB). They are in the lean
 * entry too (35.1 kB for createThrottler with the sliding window, still 2.2 kB less than the main entry's),
 * since a throttler's rate and options are read at run time. xstate-throttler/redis grew to 32.2 kB with
 * the store's per-key lines (reserve-lines.ts, store-halves.ts), its settle, the scripts' dimensions and the
 * lines' weighted turn (weighted-turn.ts).
 * xstate-throttler/timeline grew from 7.1 to 8.3 kB: each lane's share of a window (`shares`) and costs per
 * dimension; /server-limits from 9.1 to 9.6 kB: a limit read into its dimension's SET_RATE.
 * Issues 33 and 34's fixes, measured together (each budget raised by the growth, with 0.3-0.4 kB of
 * room): 42.6 kB every name (was 40.0), 39.8 createThrottler (37.3), 30.5 the machine (29.2), 37.6 the lean
 * createThrottler, 32.3 the operator, 24.7 /store, 35.4 /redis. The promise API's: timers armed in chunks
 * (long-timer.ts), a task taken back during a pass dropped (withdrawn), options read once, taskDefaults,
 * the caller's frames on a rejection, ThrottlerOverflowError, compound durations; the audit's settle
 * retention (a late settle judged in every window of its delivery). Issue 35 asks the main entry's
 * createThrottler down to 25 kB by loading such features only when configured: not done yet.
 * Issue 36's `transit` (each budget raised by the growth, with 0.3 kB of room): 44.0 kB every name (was
 * 42.6), 41.3 createThrottler (39.8), 31.7 the machine (30.5), 38.6 the lean createThrottler (37.6), 5.7 the
 * strategies (5.2: the token bucket's capacity check, the refusals of timer and warming-up), 33.6 the
 * operator, 25.0 /store and 35.7 /redis (the store's widened intervals). The option's check and its errors,
 * the measured meter (engine/clearance/transit-meter.ts, which only the promise API feeds: a candidate for
 * issue 35's loading on demand), the policies' widening and the settle book's longer horizon.
 * Issue 34's retries that keep their place (a lane's retries apart in retry-lane.ts, retryStarted, a saved
 * retry's arrivedAt), measured with transit and the rest of this round (each budget the size plus 0.3 kB):
 * 45.0 kB every name, 42.1 createThrottler, 32.2 the machine, 39.5 the lean createThrottler, 34.1 the operator;
 * /server-limits 11.6 kB (issue 39's provider accounting, issue 36's overrun pause); /replay 38.4 kB (issue
 * 37: the machine with every strategy, and the recorders). Issue 35's 25 kB for createThrottler is further
 * away: features loaded only when configured are the way (not done).
 * Issue 34's p-queue readers (onPendingZero, runningTasks, isSaturated, isRateLimited, onRateLimit(Cleared) and
 * their events: task-readers.ts, rate-limit-watch.ts), 0.8 kB (each budget the size plus 0.3 kB): 45.8 kB every
 * name, 42.9 createThrottler, 40.9 the lean entry, 40.3 the lean createThrottler; the machine is unchanged.
 * Issue 35's features as values (engine/options/features-option.ts; docs/size.md, "By feature"): the lean entry
 * loads the window audit, dimensions, option-name hints, retries, the settle book, weighted fairness and transit
 * only when an app passes their values, so its createThrottler with one strategy went from 40.3 to 34.0 kB
 * (40.7 with every feature: a budget of its own), its machine from 29.6 to 24.7. The main entry passes every
 * feature by itself and pays 0.9 kB for the mechanism (the option's check, the values' wrappers): 46.8 kB every
 * name, 44.0 createThrottler, 33.1 the machine; /rxjs 35.0 and /replay 39.3 the same way. Each budget the size plus
 * 0.3 kB. The 15 and 25 kB targets are not met yet: scripts/feature-sizes.ts says what is left, by feature.
 * A strategy of one's own (defineStrategy, issue 35 §4): /strategies carries it and its policy's checks
 * (own-policy.ts, 3.6 kB of its 7.5); the main entry pays 0.1 kB for the refusals, the restore's and the
 * `strategyError` it emits (48.1 every name). Those two budgets the size plus 0.3 kB.
 * Issue 35's second round (each budget the size plus 0.3 kB, rounded up to 0.1): four more features as values on
 * the lean entry (a task's `timeout`, the p-queue rate-limit readers `rateLimitWatch`, `exactTimers`, the clock of
 * timerPrecision 'exact', and `overflow`, 'drop-oldest' and 'drop-newest'), and the chart's descriptions (what the
 * Stately visualizer shows) kept off the lean entry's machines (machine/chart-descriptions.ts). The lean
 * createThrottler with one strategy went from 34.9 to 33.1 kB (descriptions 0.9, timeout 0.3, rate-limit watch
 * 0.2, exact timers 0.2, overflow 0.2), with every feature 42.2 to 41.8, every name 42.5 to 41.9, its machine 25.4
 * to 24.3. The main entry pays for the seams: 48.6 kB every name (was 47.8), 45.8 createThrottler (45.0), 34.3
 * the machine (33.9), 36.3 /rxjs (35.8) and 44.8 /replay (44.4), about half of it the texts kept apart and put on
 * by describeChart.
 */
/** An app on the lean entry's promise API: what each of its one-strategy bundles starts from. */
export const LEAN_CREATE_THROTTLER = "export { createThrottler } from './src/lean/index.ts';";
/** Every feature value the lean entry exports, as an app that loads them all imports them. */
const LEAN_EVERY_FEATURE =
  'export { audit, dimensions, exactTimers, fairness, optionHints, overflow, rateLimitWatch, retry, settle, timeout, ' +
  "transit } from './src/lean/index.ts';";

export const ENTRIES: readonly SizedEntry[] = [
  {
    name: 'xstate-throttler (every name)',
    source: "export * from './src/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    budget: 49_400,
  },
  {
    name: 'xstate-throttler: createThrottler alone',
    source: "export { createThrottler } from './src/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    budget: 46_600,
  },
  {
    name: 'xstate-throttler: throttlerMachine alone',
    source: "export { throttlerMachine } from './src/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    budget: 34_900,
  },
  {
    name: 'xstate-throttler/lean (every name)',
    source: "export * from './src/lean/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    budget: 42_800,
  },
  {
    name: 'xstate-throttler/lean: createThrottler, one strategy (slidingWindow)',
    source: `${LEAN_CREATE_THROTTLER} export { slidingWindow } from './src/strategies/index.ts';`,
    platform: 'browser',
    external: ['xstate'],
    budget: 33_800,
  },
  {
    name: 'xstate-throttler/lean: createThrottler, one strategy (slidingWindow), every feature',
    source: `${LEAN_CREATE_THROTTLER} export { slidingWindow } from './src/strategies/index.ts'; ${LEAN_EVERY_FEATURE}`,
    platform: 'browser',
    external: ['xstate'],
    budget: 42_500,
  },
  {
    name: 'xstate-throttler/lean: throttlerMachine, one strategy (slidingWindow)',
    source:
      "export { throttlerMachine } from './src/lean/index.ts'; export { slidingWindow } from './src/strategies/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    budget: 24_900,
  },
  {
    name: 'xstate-throttler/strategies (all four)',
    source: "export * from './src/strategies/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    // +0.1 kB: defineStrategy's check of the one rule (an answer moved later), 7,909 bytes.
    budget: 8_000,
  },
  {
    name: 'xstate-throttler/rxjs',
    source: "export * from './src/rxjs/index.ts';",
    platform: 'browser',
    external: ['xstate', 'rxjs'],
    // 26.0 -> 26.3 kB as strategies became values: the operator takes a name or a value, as the main entry.
    budget: 36_900,
  },
  {
    name: 'xstate-throttler/server-limits',
    source: "export * from './src/server-limits/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    // 6.6 -> 9.1 kB with issue 26's provider quotas (OpenAI's and Anthropic's fields, Go durations,
    // RFC 3339) and the limit learned from 429s (adaptiveLimit); 10.8 kB with issue 39's provider
    // accounting (openaiCharge, anthropicCharge/Settle, actualUsageCharge/Settle: reading a request body's
    // text and each field's error, about 1.2 kB).
    budget: 12_000,
  },
  {
    name: 'xstate-throttler/timeline',
    source: "export * from './src/timeline/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    budget: 9_000,
  },
  {
    name: 'xstate-throttler/otel',
    source: "export * from './src/otel/index.ts';",
    platform: 'browser',
    // @opentelemetry/api is imported for its types only: nothing of it may be left in the bundle. 4.0 kB
    // measured: the rate helpers (formatRate, ThrottlerOptionError) and the instruments' own code.
    external: ['xstate'],
    budget: 4_500,
  },
  {
    name: 'xstate-throttler/replay',
    source: "export * from './src/replay/index.ts';",
    platform: 'browser',
    // node:fs and node:readline are loaded only by recordingFile(path), when it is called. 36.6 kB measured
    // as it was made (issue 37): nearly all of it the machine with every strategy (a replay takes any by name).
    // A recording that names a strategy of one's own is refused saying to give its value (0.07 kB), and a
    // strategy's breach reported once per event (0.01).
    external: ['xstate', 'node:*'],
    budget: 45_800,
  },
  {
    name: 'xstate-throttler/store',
    source: "export * from './src/store/index.ts';",
    platform: 'browser',
    external: ['xstate'],
    // The store client a throttler runs over any backend (the clearance, reserve calls and lines, grant
    // book, late grants, settles, the store clock), the memory store's decisions and the fleet audit's
    // counting: no Lua, no ioredis, nothing Node-only (it runs in a browser or a worker). 24.0 kB measured
    // as it was made (issue 35); xstate-throttler/redis stays at 34.4 kB, the client in it.
    budget: 28_600,
  },
  {
    name: 'xstate-throttler/redis',
    source: "export * from './src/redis/index.ts';",
    platform: 'node',
    external: ['xstate', 'ioredis', 'node:*'],
    // Node only. 22.5 -> 28.2 kB with issue 22's late grants re-timed in Redis and issue 25's fleet
    // audit and store traffic counts: most of it is Lua, shipped as text with its comments (prelude,
    // reserve, retime and the audit scripts are the five largest modules). 28.6 -> 25.1 kB as strategies
    // became values: the store's local window while Redis is down builds its policies with the
    // throttler's own strategy value, so the store no longer bundles every strategy. 32.2 -> 34.4 kB
    // with issue 27's fleet-wide weighted fairness: the finish tags and waiting lines in Redis
    // (lua/fair-tags.ts, its comments kept out of the shipped Lua) and the asks beyond the heads (fair-asks.ts).
    // 34.5 -> 34.8 kB with issue 33's lines held by their own rates only where they bind, and remembered
    // as waiting for the room their rates allow (fair-tags.ts).
    budget: 36_000,
  },
];

export interface BundleSize {
  minified: number;
  gzipped: number;
  /** Every import left in the bundle: only what `external` names may remain. */
  imports: string[];
  /** The bundle's modules, heaviest first, by their minified bytes in it. */
  modules: { path: string; bytes: number }[];
  /** The minified bundle itself. */
  text: string;
}

/** How an app's bundler builds an entry: minified ESM, its peers external, nothing written. */
export function appBundle(entry: SizedEntry) {
  return {
    stdin: { contents: entry.source, resolveDir: process.cwd(), loader: 'ts' as const, sourcefile: 'app.ts' },
    bundle: true,
    minify: true,
    format: 'esm' as const,
    platform: entry.platform,
    target: 'es2022',
    external: [...entry.external],
    write: false as const,
    logLevel: 'silent' as const,
  };
}

export async function measureEntry(entry: SizedEntry): Promise<BundleSize> {
  const result = await build({ ...appBundle(entry), metafile: true });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild wrote no output');
  const outputs = Object.values(result.metafile.outputs);
  const imports = outputs.flatMap((file) => file.imports.map(({ path }) => path));
  const modules = outputs
    .flatMap((file) => Object.entries(file.inputs).map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput })))
    .sort((a, b) => b.bytes - a.bytes);
  return {
    minified: output.contents.length,
    gzipped: gzipSync(output.contents, { level: 9 }).length,
    imports,
    modules,
    text: output.text,
  };
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

// Run as a script (`npm run size`), not when the test imports it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const why = process.argv.includes('--why');
  console.log('| entry | minified | gzipped | budget |\n| --- | --- | --- | --- |');
  for (const entry of ENTRIES) {
    const { minified, gzipped, modules } = await measureEntry(entry);
    console.log(`| ${entry.name} | ${kB(minified)} | ${kB(gzipped)} | ${kB(entry.budget)} |`);
    if (why) for (const { path, bytes } of modules.slice(0, 12)) console.log(`|   ${path} | ${kB(bytes)} | | |`);
    if (gzipped > entry.budget) process.exitCode = 1;
  }
}
