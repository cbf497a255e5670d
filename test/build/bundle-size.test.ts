import { describe, expect, it } from 'vitest';
import { ENTRIES, LEAN_CREATE_THROTTLER, measureEntry } from '../../scripts/bundle-size.js';

/** Each entry point (and the core's two everyday names alone) bundled as an app would, minified and gzipped. */
describe.each(ENTRIES)('$name, bundled', (entry) => {
  it('stays within its gzipped budget and imports nothing but its peers', async () => {
    const { gzipped, imports, modules } = await measureEntry(entry);
    const heaviest = modules.slice(0, 8).map(({ path, bytes }) => `${path} ${bytes}`);
    expect(
      gzipped,
      `${entry.name}: ${gzipped} bytes gzipped; heaviest modules: ${heaviest.join(', ')}`,
    ).toBeLessThanOrEqual(entry.budget);
    const allowed = (path: string) =>
      entry.external.some((name) => (name.endsWith('*') ? path.startsWith(name.slice(0, -1)) : path === name));
    expect(imports.filter((path) => !allowed(path))).toEqual([]);
  });
});

describe('the core entry point', () => {
  it('never bundles rxjs, and an app that imports only createThrottler pays for no other adapter', async () => {
    const core = ENTRIES.find(({ name }) => name === 'xstate-throttler (every name)');
    const promiseOnly = ENTRIES.find(({ name }) => name === 'xstate-throttler: createThrottler alone');
    if (core === undefined || promiseOnly === undefined) throw new Error('the core entries are gone from ENTRIES');
    expect(new Set((await measureEntry(core)).imports)).toEqual(new Set(['xstate']));
    const { modules } = await measureEntry(promiseOnly);
    expect(
      modules.map(({ path }) => path).filter((path) => /adapters\/rxjs|inspection|persistence/.test(path)),
    ).toEqual([]);
  });
});

/**
 * What an app that picks one strategy through xstate-throttler/lean bundles: that strategy's policy and
 * no other's. Read two ways: the modules esbuild put in the bundle, and strings only one algorithm holds
 * (a field of its saved state, an error of its own) in the minified output.
 */
describe('an app on xstate-throttler/lean with one strategy', () => {
  /** The policy modules (under src/policies/) each strategy brings, besides those every policy shares. */
  const ALGORITHM: Record<string, readonly string[]> = {
    timer: ['timer.ts', 'all-of.ts', 'strategies/timer.ts'],
    slidingWindow: ['sliding-window.ts', 'delivery-log.ts', 'pacing.ts', 'strategies/sliding-window.ts'],
    tokenBucket: ['token-bucket.ts', 'smooth-rate.ts', 'all-of.ts', 'strategies/token-bucket.ts'],
    warmingUp: ['warming-up.ts', 'smooth-rate.ts', 'all-of.ts', 'strategies/warming-up.ts'],
  };
  /**
   * Shared by every policy (the contract, saved-state readers, the value check, the wrapper of one policy per
   * dimension and what builds it), or a constant the machine reads.
   */
  const SHARED = ['policy.ts', 'strategy.ts', 'saved-fields.ts', 'index.ts', 'dimensions.ts', 'cost-policy.ts'];
  /** A string only one algorithm's code holds, and the strategies that bring it. */
  const MARKERS: ReadonlyArray<[string, readonly string[]]> = [
    ['periodStart', ['timer']],
    ['inFlightCost', ['slidingWindow']],
    ['storedPermits', ['tokenBucket', 'warmingUp']],
    ['above 0 ms for warming-up', ['warmingUp']],
  ];

  it.each(Object.keys(ALGORITHM))('bundles %s alone, and no other strategy', async (strategy) => {
    const entry = {
      name: `lean + ${strategy}`,
      source: `${LEAN_CREATE_THROTTLER} export { ${strategy} } from './src/strategies/index.ts';`,
      platform: 'browser' as const,
      external: ['xstate'],
      budget: 0,
    };
    const { modules, text } = await measureEntry(entry);
    const policies = modules
      .filter(({ path, bytes }) => path.startsWith('src/policies/') && bytes > 0)
      .map(({ path, bytes }) => ({ file: path.slice('src/policies/'.length), bytes }))
      // smooth-rate.ts's GRANT_TOLERANCE_MS, a number the machine's delivery pass reads, is no policy code.
      .filter(({ file, bytes }) => !SHARED.includes(file) && !(file === 'smooth-rate.ts' && bytes < 40));
    expect(new Set(policies.map(({ file }) => file))).toEqual(new Set(ALGORITHM[strategy]));
    for (const [marker, owners] of MARKERS) expect(text.includes(marker), marker).toBe(owners.includes(strategy));
  });

  it('costs less than the main entry by at least the other strategies (1.7 kB gzipped for the sliding window)', async () => {
    const sized = (name: string) => ENTRIES.find((entry) => entry.name === name);
    const main = sized('xstate-throttler: createThrottler alone');
    const lean = sized('xstate-throttler/lean: createThrottler, one strategy (slidingWindow)');
    if (main === undefined || lean === undefined) throw new Error('the createThrottler entries are gone from ENTRIES');
    const [mainSize, leanSize] = await Promise.all([measureEntry(main), measureEntry(lean)]);
    expect(mainSize.gzipped - leanSize.gzipped).toBeGreaterThanOrEqual(1_700);
  });
});

/**
 * Features as values (engine/options/features-option.ts): the lean createThrottler bundles a feature's code
 * only when the app imports its value, the main entry's every one.
 */
describe('an app on xstate-throttler/lean without features', () => {
  /** Each feature value, the modules only it brings (none of its own: undefined), and a string only its code holds. */
  const FEATURES: ReadonlyArray<[name: string, folder: RegExp | undefined, marker: string]> = [
    ['audit', /^src\/engine\/audit\//, 'windowsOver'],
    ['dimensions', /^src\/policies\/dimensions(-feature)?\.ts$/, 'at least one dimension above 0'],
    ['optionHints', /^src\/engine\/options\/option-hints\.ts$/, "Bottleneck's minTime"],
    ['settle', /^src\/engine\/clearance\/settle-book\.ts$/, 'times the largest limit in force'],
    ['fairness', /^src\/engine\/fair-share\.ts$/, 'a positive finite number whose reciprocal is finite too'],
    ['transit', /^src\/engine\/(clearance\/transit-meter|options\/transit-feature)\.ts$/, "the uplink's spread"],
    [
      'retry',
      /^src\/adapters\/(retry-feature|task-retry|retry-budget)\.ts$/,
      'a synchronous function (error, attempt)',
    ],
    ['timeout', /^src\/adapters\/task-timeout\.ts$/, 'ran longer than its timeout'],
    ['overflow', /^src\/engine\/queue\/overflow-choice\.ts$/, 'waitingByLevel'],
    ['rateLimitWatch', /^src\/adapters\/rate-limit-watch\.ts$/, 'clearedWaiters'],
    // preciseClock shares its module with the clocks every throttler may use (turnClock).
    ['exactTimers', undefined, 'MessageChannel'],
  ];

  it.each(FEATURES)('bundles %s only when it imports its value', async (feature, folder, marker) => {
    const measured = (extra: string) =>
      measureEntry({
        name: `lean + slidingWindow${extra}`,
        source: `${LEAN_CREATE_THROTTLER} export { slidingWindow } from './src/strategies/index.ts';${extra}`,
        platform: 'browser',
        external: ['xstate'],
        budget: 0,
      });
    const without = await measured('');
    const given = await measured(` export { ${feature} } from './src/lean/index.ts';`);
    const featureModules = ({ modules }: { modules: { path: string; bytes: number }[] }) =>
      modules.filter(({ path, bytes }) => folder?.test(path) === true && bytes > 0).map(({ path }) => path);
    expect(featureModules(without)).toEqual([]);
    expect(without.text.includes(marker)).toBe(false);
    if (folder !== undefined) expect(featureModules(given).length).toBeGreaterThan(0);
    expect(given.text.includes(marker)).toBe(true);
    expect(given.gzipped).toBeGreaterThan(without.gzipped);
  });

  it("bundles the chart's descriptions only in the main entry's createThrottler (machine/chart-descriptions.ts)", async () => {
    const sized = (name: string) => ENTRIES.find((entry) => entry.name === name);
    const lean = sized('xstate-throttler/lean: createThrottler, one strategy (slidingWindow)');
    const main = sized('xstate-throttler: createThrottler alone');
    if (main === undefined || lean === undefined) throw new Error('the createThrottler entries are gone from ENTRIES');
    const marker = 'Queues messages and forwards them to a target actor';
    const [mainSize, leanSize] = await Promise.all([measureEntry(main), measureEntry(lean)]);
    expect([mainSize.text.includes(marker), leanSize.text.includes(marker)]).toEqual([true, false]);
  });
});
