// The size of the core entry point as a browser app's bundler would include it:
// src/index.ts bundled for the browser, minified, with xstate and rxjs left out
// (they are peer dependencies, in the app's bundle anyway), then gzipped.
// `npm run size` prints it; test/build/bundle-size.test.ts holds it to the budget.
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * The gzipped budget: 26.5 kB. The measured 26.0 kB carries issue 16's speed: the lease (the LEASE and
 * LEASE_END events, the promise API's task lease and leased run: +1.0 kB, for 4x the promise API's
 * throughput) and the quiet paths (a QUEUE that needs no effects as a plain assign: +0.7 kB, for 2.4x
 * the machine's per-event rate), bench/README.md W1; before them, 24.3 kB carried the hardening (18.7 kB), the store seam,
 * priorities and deadlines, and keyed limits (21.4 kB with keys alone; 23.6 kB with all three), and
 * the adapters' share of them (per-task priority and maxWait, ThrottlerExpiredError, setRate per key
 * and template, the hook the serverLimits option binds to: +0.5 kB); the timeline, the server limits
 * (their parsers, and the serverLimits option itself) and the Redis store are entry points of their
 * own. Raise it only with a reason here. 28.5 kB after issue 22's hardening and issue 23's surface
 * (26.0 -> 27.8 kB measured): hostile answer objects checked by descriptor (answer-object.ts), the
 * machine's own events marked and refused from outside, the store's conflict / quarantine / slow-link
 * events, the adapters' message check, stop() without side effects, the timer's take-over on SET_RATE.
 * Issue 24 asks to cut what a one-strategy user pays: that is where it comes down again.
 * 32.5 kB after issue 24's everyday promise API (27.8 -> 32.2 kB measured): size/pending/onIdle and
 * the task events, clear(), a task's { signal }, timeout and retry with its backoff and budget,
 * stop({ drain }), and option names checked with what was meant (option-names.ts). They live in the
 * promise API's files, which a machine-only entry point would leave out. 33.5 kB with the hold for a
 * target set before it started (target-start.ts), a task's option names checked and onHandlerError
 * (33.0 kB measured).
 */
export const GZIP_BUDGET_BYTES = 33_500;

export interface BundleSize {
  minified: number;
  gzipped: number;
  /** Every import left in the bundle: only the peer dependencies may remain. */
  imports: string[];
}

export async function measureCoreBundle(): Promise<BundleSize> {
  const result = await build({
    entryPoints: ['src/index.ts'],
    bundle: true,
    minify: true,
    format: 'esm',
    // The browser platform refuses Node built-ins, so a node: import on any path fails the build.
    platform: 'browser',
    target: 'es2022',
    external: ['xstate', 'rxjs'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild wrote no output');
  const imports = Object.values(result.metafile.outputs).flatMap((file) => file.imports.map(({ path }) => path));
  return { minified: output.contents.length, gzipped: gzipSync(output.contents, { level: 9 }).length, imports };
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

// Run as a script (`npm run size`), not when the test imports it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { minified, gzipped, imports } = await measureCoreBundle();
  console.log(
    `core entry point (src/index.ts; ${[...new Set(imports)].join(', ')} external): ${kB(minified)} minified, ` +
      `${kB(gzipped)} gzipped (${gzipped} bytes; budget ${GZIP_BUDGET_BYTES})`,
  );
  if (gzipped > GZIP_BUDGET_BYTES) process.exitCode = 1;
}
