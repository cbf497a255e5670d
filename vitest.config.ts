import { playwright } from '@vitest/browser-playwright';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { chromiumArgs, findChromium, missingChromiumIsAnError, NO_CHROMIUM } from './test/support/chromium.js';
import { PAGE_SUITES } from './test/support/tiers.js';

/**
 * Three projects: `node` runs every suite (its quick tier alone is `npm run test:quick`,
 * vitest.quick.config.ts; the tiers are in test/support/tiers.ts); `browser` runs the core ones (the
 * machine in virtual time, the promise API, the operator, a real-timer check of
 * strictness) in real headless Chromium, since the core entry point promises to
 * run in browsers unchanged. Playwright cannot download its browser here, so
 * the system's Chromium is used (CHROMIUM_PATH, or a usual install path; the
 * rule is in test/support/chromium.ts, shared with the live page's test). With
 * none, the browser project is skipped with one line saying so, except under
 * CI, where that is an error: CI must run it (.ci/run installs Chromium).
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
      // After the node project, not beside it: the node project's real-time suites (soak, bench, the
      // built package) have time budgets that Chromium and its bundler would eat into on a small machine.
      sequence: { groupOrder: 1 },
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

// The live page's test (PAGE_SUITES) drives Chromium itself (Playwright from Node), after the node project for the same reason.

function projects(): TestProjectInlineConfiguration[] {
  const node: TestProjectInlineConfiguration = {
    extends: true,
    test: {
      name: 'node',
      include: ['test/**/*.test.ts'],
      // One file at a time (Vitest's default on two cores): the slow tier's real-time suites (examples,
      // the benchmark) failed beside a second worker on a busy machine. test:quick runs two at a time.
      exclude: [...configDefaults.exclude, ...PAGE_SUITES],
    },
  };
  // Always there: without Chromium its test says in one line why it skipped (and fails under CI).
  const page: TestProjectInlineConfiguration = {
    extends: true,
    test: { name: 'page', include: PAGE_SUITES, sequence: { groupOrder: 1 } },
  };
  const chromium = findChromium();
  if (chromium !== undefined) return [node, page, browserProject(chromium)];
  if (missingChromiumIsAnError()) {
    throw new Error(
      'CI=true and no Chromium found: the browser project and the live page test must run in CI (apt-get install -y chromium)',
    );
  }
  // Vitest loads this file twice (the root, then the projects extending it): say it once per run.
  const said = globalThis as { browserSkipSaid?: boolean };
  if (said.browserSkipSaid) return [node, page];
  said.browserSkipSaid = true;
  console.log(`Skipped the browser test project and the live page test: ${NO_CHROMIUM}`);
  return [node, page];
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: projects(),
  },
});
