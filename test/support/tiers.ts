/**
 * Which test files run where, and how (vitest.config.ts). `npm test` runs every file: the `node`
 * project (the quick tier), then `node-slow` (SLOW_SUITES), then the browser project and the live
 * page. `npm run test:quick` runs the `node` project alone, for the edit loop. A file is quick unless
 * listed here, so a new file can never fall out of both tiers; test/build/tiers.test.ts checks that
 * every listed file exists.
 */

/**
 * Suites that are slow by nature: soak, memory, scale, bench, fleet, other processes, build, the examples at
 * their documented size. The quick tier's budget: under 25 s of CPU (user + sys of `npm run test:quick`), so
 * that beside a second `npm test`, which leaves it about one core, it takes under 30 s; a file of a second or
 * more of CPU that a change to src/ rarely breaks alone belongs here (the per-file CPU: process.cpuUsage()
 * around each file, in a setup file).
 */
export const SLOW_SUITES = [
  // Soak and scale: a million messages, a cost per message against 10 and 10,000 channels, 100k tasks.
  'test/machine/soak.test.ts',
  'test/machine/many-channels.test.ts',
  // Linear-time enqueueing: 300,000 messages timed in CPU time.
  'test/machine/queue-linear-time.test.ts',
  // The Stately inspector's package fed a throttler holding 100,000 messages (0.7 s of CPU; inspection.test.ts
  // keeps summarizeInspection in the quick tier); every picture drawn and parsed back as SVG, 100,000 deliveries
  // among them (1.4 s; the other timeline suites stay quick).
  'test/machine/stately-inspector.test.ts',
  'test/timeline/render.test.ts',
  'test/adapters/promise-load.test.ts',
  // Thousands of messages over 50 windows per run, per strategy: the use of the limit with settled costs.
  'test/properties/actual-cost.property.test.ts',
  'test/dimensions/settle.property.test.ts',
  'test/redis/settle-use.test.ts',
  // Likewise across a fleet: three throttlers on one memory store, tokens settled late, the share of the token
  // quota used over the steady part (1 s of CPU).
  'test/store/fleet-late-settles.test.ts',
  // Regions sharing one limit against a brute force over long virtual spans: swaps of demand, partitions, leases
  // (1 s of CPU; region-shares.test.ts keeps the regions in the quick tier).
  'test/store/regions/shares.property.test.ts',
  // Memory, each in a process of its own with --expose-gc.
  'test/machine/keyed-limits-memory.test.ts',
  'test/machine/cancel-memory.test.ts',
  // The benchmark at a tiny size.
  'test/bench/bench.test.ts',
  'test/bench/shared-limit.test.ts',
  'test/bench/w1-otel.test.ts',
  'test/bench/llm-quota.test.ts',
  // Fleets of processes, processes that must exit, servers of their own (Redis restarted, a Cluster).
  'test/redis/fleet.test.ts',
  'test/redis/throttler-fleet.test.ts',
  'test/redis/exit.test.ts',
  'test/adapters/promise-exit.test.ts',
  'test/redis/outage.test.ts',
  'test/redis/cluster.test.ts',
  'test/redis/local-recovery.test.ts',
  'test/redis/throttler-outage.test.ts',
  'test/redis/fleet-restart.test.ts',
  // Per-channel lines on the store: a property over fleets of throttlers against the real Redis.
  'test/redis/throttler-store-lines.property.test.ts',
  // Weighted fairness across a fleet on the store: a property over fleets of 2 to 4 throttlers, and
  // fleets under a steady stream for seconds of virtual time.
  'test/redis/weighted-fleet.property.test.ts',
  'test/redis/throttler-store-fairness.test.ts',
  // The adaptive limit against hidden-limit servers, over L from 5 to 500 (about 20 s on a busy machine).
  'test/server-limits/adaptive-limit.property.test.ts',
  // The adaptive limit under uplink jitter, L = 10 to 300 over 80 intervals, twice (about 60 s on a busy machine);
  // and the argument's brute-force pacing runs (about 10 s).
  'test/server-limits/adaptive-jitter.test.ts',
  'test/server-limits/jitter-bound.property.test.ts',
  // adaptive over a real socket: 30 s of real time.
  'test/server-limits/adaptive-socket.test.ts',
  // The mock providers over real sockets with injected delay: 15-45 s of real time.
  'test/examples/provider-sockets.test.ts',
  // The examples' scenarios at their documented size, in virtual time but CPU-bound: a seeded day of traffic
  // replayed three ways (3 s of CPU), each mock provider paced and settled over the simulated network (3 s).
  'test/examples/replay-day.test.ts',
  'test/examples/provider-pace.test.ts',
  'test/examples/provider-accounting.test.ts',
  // Other processes started with tsx (about a second of CPU each): the replay CLI as a user runs it, a
  // process that must exit after its last task, scripts/timeline.ts --check.
  'test/replay/cli.test.ts',
  'test/machine/timer-periods.test.ts',
  'test/timeline/committed-picture.test.ts',
  // Rates in dimensions on the store: properties over processes and throttlers sharing one limiter.
  'test/redis/store-dimensions.property.test.ts',
  // Two throttlers on one Redis store against the mock provider over sockets: real time, about 20 s.
  'test/redis/provider-fleet.test.ts',
  // The conformance suite every store backend passes, against the real Redis (a round trip per call).
  'test/redis/redis.conformance.test.ts',
  // The memory store and the Redis scripts answering one random script of calls alike.
  'test/redis/memory-vs-redis.property.test.ts',
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
  // The compiler over the public entries (the API report) and over every source file (functions' length and
  // parameters, the layout's imports): 6 of the quick tier's 43 s of CPU, for what changes rarely in an edit
  // loop; `npm test` and CI run them.
  'test/build/api-report.test.ts',
  'test/build/source-shape.test.ts',
  // The built package in every runtime (Node 22 and 24, Bun, Deno, workerd), each installed from the registry.
  'test/runtimes/runtimes.test.ts',
];

/** The live page's test drives Chromium itself (Playwright from Node); it is not in the node project. */
export const PAGE_SUITES = ['test/examples/browser-page.test.ts'];

/**
 * How the quick tier runs: two files at a time on two cores, in processes the files share
 * (`isolate: false`: half the CPU of a process per file, the difference being startup). Forks, not
 * threads: structured-field.test.ts measures CPU time with process.cpuUsage() (cpu-time.ts), which a
 * thread would share with the other worker. A file that
 * leaves a global replaced would break the files after it in its process: shared-process.ts fails the
 * next file naming it (the cause of the Redis store's tests that once hung late in such a run: a spy
 * on setTimeout that Vitest restored, at the file's end, to the fake timers of a finished test).
 */
export const QUICK_TIER = {
  maxWorkers: 2,
  isolate: false,
  setupFiles: ['test/support/shared-process.ts'],
};

/**
 * How the slow tier runs: two files at a time, each in a process of its own (they start processes and
 * servers, measure memory, wait for exits). Its real-time suites are written for a busy machine (limits
 * checked on Redis time or in order, time bounds with a loaded machine's slack) and complexity is
 * compared in CPU time (cpu-time.ts): `npm test` passes beside a second one.
 */
export const SLOW_TIER = { maxWorkers: 2 };
