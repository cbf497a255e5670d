import { configDefaults, defineConfig } from 'vitest/config';
import { PAGE_SUITES, QUICK_WORKERS, SLOW_SUITES } from './test/support/tiers.js';

/**
 * `npm run test:quick`, for the edit loop: the node project's unit, property and virtual-time suites,
 * without the slow tier (soak, memory, scale, bench, fleets, other processes, the build) and
 * without the browser. `npm test` (vitest.config.ts) runs everything, these included.
 */
export default defineConfig({
  test: {
    name: 'quick',
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...PAGE_SUITES, ...SLOW_SUITES],
    ...QUICK_WORKERS,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
