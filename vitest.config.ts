import { playwright } from '@vitest/browser-playwright';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { chromiumArgs, findChromium, missingChromiumIsAnError, NO_CHROMIUM } from './test/support/chromium.js';
import { PAGE_SUITES, QUICK_TIER, SLOW_SUITES, SLOW_TIER } from './test/support/tiers.js';

/**
 * Four projects. `node` runs the quick tier (`npm run test:quick` runs it alone), two files at a time
 * in processes the files share; then `node-slow` runs the slow tier (soak, memory, scale, bench, fleets,
 * other processes, the build), two files at a time, each in a process of its own (the tiers and why
 * they run so are in test/support/tiers.ts); then `browser` runs the core
 * suites (the machine in virtual time, the promise API, the operator, a real-timer check of
 * strictness) in real headless Chromium, since the core entry point promises to run in browsers
 * unchanged, and `page` the live page's test. Playwright cannot download its browser here, so the
 * system's Chromium is used (CHROMIUM_PATH, or a usual install path; the rule is in
 * test/support/chromium.ts, shared with the live page's test). With none, the browser project is
 * skipped with one line saying so, except under CI, where that is an error: CI must run it (.ci/run
 * installs Chromium).
 */

/** Suites that import nothing Node-only and test what a browser user runs. */
const BROWSER_SUITES = [
  'test/machine/akka-spec.test.ts',
  'test/machine/inspection.test.ts',
  'test/machine/multi-channel.test.ts',
  'test/machine/options.test.ts',
  'test/machine/persistence.test.ts',
  'test/machine/real-time-strictness.test.ts',
  'test/machine/reliability.test.ts',
  'test/machine/strictness.test.ts',
  'test/machine/throttler-machine.test.ts',
  'test/machine/timer-precision.test.ts',
  'test/adapters/promise.test.ts',
  'test/adapters/rxjs.test.ts',
  // Servers' limits are read in browsers too (a fetch Response's headers).
  'test/server-limits/read-server-limits.test.ts',
  'test/server-limits/structured-field.test.ts',
  'test/server-limits/provider-fields.test.ts',
  'test/server-limits/provider-times.property.test.ts',
];

function browserProject(executablePath: string): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name: 'browser',
      include: BROWSER_SUITES,
      // After the node projects, not beside them: Chromium and its bundler would take the CPU from them.
      sequence: { groupOrder: 2 },
      browser: {
        enabled: true,
        headless: true,
        // The suites test logic, not pages: a screenshot of a blank page on failure says nothing.
        screenshotFailures: false,
        provider: playwright({ launchOptions: { executablePath, args: chromiumArgs() } }),
        instances: [{ browser: 'chromium' }],
      },
    },
  };
}

function projects(): TestProjectInlineConfiguration[] {
  const node: TestProjectInlineConfiguration = {
    extends: true,
    test: {
      name: 'node',
      include: ['test/**/*.test.ts'],
      exclude: [...configDefaults.exclude, ...PAGE_SUITES, ...SLOW_SUITES],
      ...QUICK_TIER,
    },
  };
  const nodeSlow: TestProjectInlineConfiguration = {
    extends: true,
    test: { name: 'node-slow', include: SLOW_SUITES, ...SLOW_TIER, sequence: { groupOrder: 1 } },
  };
  // Always there: without Chromium its test says in one line why it skipped (and fails under CI).
  // The live page's test drives Chromium itself (Playwright from Node), after the node projects too.
  const page: TestProjectInlineConfiguration = {
    extends: true,
    test: { name: 'page', include: PAGE_SUITES, sequence: { groupOrder: 2 } },
  };
  const chromium = findChromium();
  if (chromium !== undefined) return [node, nodeSlow, page, browserProject(chromium)];
  if (missingChromiumIsAnError()) {
    throw new Error(
      'CI=true and no Chromium found: the browser project and the live page test must run in CI (apt-get install -y chromium)',
    );
  }
  // Vitest loads this file twice (the root, then the projects extending it): say it once per run.
  const said = globalThis as { browserSkipSaid?: boolean };
  if (said.browserSkipSaid) return [node, nodeSlow, page];
  said.browserSkipSaid = true;
  console.log(`Skipped the browser test project and the live page test: ${NO_CHROMIUM}`);
  return [node, nodeSlow, page];
}

export default defineConfig({
  test: {
    // Each module's transform kept on disk (node_modules/.experimental-vitest-cache, keyed by its content and
    // the config) for the next run: a rerun of the quick tier transforms only what changed (Vitest's "transform"
    // 5.4 s, then 1.6 s). `npx vitest --clearCache` empties it.
    experimental: { fsModuleCache: true },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: projects(),
  },
});
