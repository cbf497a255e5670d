// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with .d.ts files, using only the TypeScript
// compiler, marks each folder's module type, and says what it does as it goes, with each step's time.
// The type check is the build's cost, so it runs once: the ESM compilation checks the source and emits
// JavaScript and declarations; the CommonJS one only transpiles (`--noCheck`: the source is written with
// `isolatedModules`, so each file compiles alone) beside it, and takes the ESM declarations, which are the
// same files (each folder's package.json says whether they describe ES or CommonJS modules).
// No source maps (tsconfig.build.json): the package ships no src/, and a map without it sends a stack
// trace to files that are not there; the compiled JavaScript keeps the source's names and comments, so a
// trace into it reads well as it is.
import { execFile } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const startedAt = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** One step, told as it starts and as it ends, with its time. */
async function step(what, work) {
  const since = performance.now();
  console.log(`build: ${what}...`);
  await work();
  console.log(`build: ${what}: done in ${seconds(since)}`);
}

const tsc = async (...args) => {
  try {
    const { stdout, stderr } = await run(process.execPath, ['node_modules/typescript/bin/tsc', ...args]);
    process.stdout.write(stdout);
    process.stderr.write(stderr);
  } catch (error) {
    process.stdout.write(error.stdout ?? '');
    process.stderr.write(error.stderr ?? '');
    throw new Error(`tsc ${args.join(' ')} failed`);
  }
};

await step('clearing dist/', async () => rmSync('dist', { recursive: true, force: true }));
await Promise.all([
  step('dist/esm: type-checking src/, emitting ES modules and .d.ts', () => tsc('-p', 'tsconfig.build.json')),
  step('dist/cjs: transpiling src/ to CommonJS, unchecked (the ESM step checks)', () =>
    tsc(
      '-p',
      'tsconfig.build.json',
      '--module',
      'commonjs',
      '--moduleResolution',
      'node10',
      '--outDir',
      'dist/cjs',
      '--noCheck',
      '--declaration',
      'false',
    ),
  ),
]);
await step('dist/cjs: copying the .d.ts files of dist/esm, marking each folder ESM or CommonJS', async () => {
  cpSync('dist/esm', 'dist/cjs', { recursive: true, filter: (path) => !path.endsWith('.js') });
  writeFileSync('dist/esm/package.json', `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
  writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
});
console.log(`build: dist/ built in ${seconds(startedAt)}`);
