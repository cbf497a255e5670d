import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * `npm run build` once for every test file that needs dist/ (the built package test, the package
 * install test), however many run at once: the slow tier runs two files at a time, and a second build
 * deletes dist/ under the first file's checks. A lock directory (mkdir is atomic) lets one file build;
 * a stamp of the sources it built from lets the others use that build. The lock and the stamp live in
 * node_modules/.cache, never in dist/ (which is packed).
 */
const SOURCES = ['src', 'scripts/build.mjs', 'tsconfig.build.json', 'tsconfig.json', 'package.json'];
/** A lock older than this was left by a killed run. */
const STALE_LOCK_MS = 15 * 60_000;

function stampOf(repo: string): string {
  const hash = createHash('sha256');
  const walk = (path: string): void => {
    const full = join(repo, path);
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) walk(join(path, name));
    } else {
      hash.update(path);
      hash.update(readFileSync(full));
    }
  };
  for (const path of SOURCES) walk(path);
  return hash.digest('hex');
}

async function locked<T>(lock: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      } catch {
        // Gone meanwhile: try again.
      }
      if (Date.now() > giveUpAt) throw new Error(`the build lock ${lock} was held for ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds dist/ unless it was built from these sources already (by this file or another). */
export async function buildPackageOnce(repo: string, timeoutMs: number): Promise<void> {
  const cache = join(repo, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const stampFile = join(cache, 'xstate-throttler-build-stamp');
  await locked(join(cache, 'xstate-throttler-build-lock'), timeoutMs, async () => {
    const stamp = stampOf(repo);
    let built: string | undefined;
    try {
      built = readFileSync(stampFile, 'utf8');
    } catch {
      built = undefined;
    }
    if (built === stamp && statSync(join(repo, 'dist', 'esm', 'index.js'), { throwIfNoEntry: false })) return;
    rmSync(stampFile, { force: true });
    await promisify(execFile)('npm', ['run', 'build'], { cwd: repo, timeout: timeoutMs });
    writeFileSync(stampFile, stamp);
  });
}
