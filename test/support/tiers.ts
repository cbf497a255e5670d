/**
 * Which test files run where. `npm test` runs every file: the node project (the quick tier and the
 * slow one), then the browser project and the live page. `npm run test:quick` runs the quick tier
 * alone (vitest.quick.config.ts): the node project without SLOW_SUITES, for the edit loop. A file is
 * quick unless listed here, so a new file can never fall out of both tiers; test/build/tiers.test.ts
 * checks that every listed file exists.
 */

/** Suites that are slow by nature: soak, memory, scale, bench, fleet, other processes, build. */
export const SLOW_SUITES = [
  // Soak and scale: a million messages, a cost per message against 10 and 10,000 channels, 100k tasks.
  'test/machine/soak.test.ts',
  'test/machine/many-channels.test.ts',
  'test/adapters/promise-load.test.ts',
  // Memory, each in a process of its own with --expose-gc.
  'test/machine/keyed-limits-memory.test.ts',
  'test/machine/cancel-memory.test.ts',
  // The benchmark at a tiny size.
  'test/bench/bench.test.ts',
  'test/bench/shared-limit.test.ts',
  'test/bench/w1-otel.test.ts',
  // Fleets of processes, processes that must exit, servers of their own (Redis restarted, a Cluster).
  'test/redis/fleet.test.ts',
  'test/redis/throttler-fleet.test.ts',
  'test/redis/exit.test.ts',
  'test/redis/outage.test.ts',
  'test/redis/cluster.test.ts',
  'test/redis/local-recovery.test.ts',
  'test/redis/throttler-outage.test.ts',
  // Real round trips through a delaying proxy.
  'test/redis/slow-link.test.ts',
  // The otel store instruments against a throwaway Redis that is paused and loses its keys.
  'test/otel/store.test.ts',
  // The Prometheus example in its own process, scraped over HTTP on real time.
  'test/otel/prometheus.test.ts',
  // Every example in its own process, and the built package (loaded, packed and installed).
  'test/examples.test.ts',
  'test/build/prod-build.test.ts',
  'test/build/package-install.test.ts',
  // The compiler over every TypeScript block of README.md and docs/, twice (node16 and bundler).
  'test/build/doc-snippets.test.ts',
  'test/build/bundle-size.test.ts',
];

/** The live page's test drives Chromium itself (Playwright from Node); it is not in the node project. */
export const PAGE_SUITES = ['test/examples/browser-page.test.ts'];

/**
 * How the quick tier runs: two files at a time on two cores (Vitest's default is cores - 1: one;
 * the node project of `npm test` keeps it, as its real-time suites failed beside a second worker).
 * Each file keeps a process of its own: with modules shared between the files of a worker
 * (`isolate: false`, a third of the CPU) the Redis store's tests hung late in a run, cause not found.
 */
export const QUICK_WORKERS = { maxWorkers: 2 };
