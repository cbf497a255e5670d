// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with .d.ts files,
// using only the TypeScript compiler, and marks each folder's module type.
// The two compilations are independent, so they run side by side. No source maps (tsconfig.build.json):
// the package ships no src/, and a map without it sends a stack trace to files that are not there; the
// compiled JavaScript keeps the source's names and comments, so a trace into it reads well as it is.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
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

rmSync('dist', { recursive: true, force: true });
await Promise.all([
  tsc('-p', 'tsconfig.build.json'),
  tsc('-p', 'tsconfig.build.json', '--module', 'commonjs', '--moduleResolution', 'node10', '--outDir', 'dist/cjs'),
]);
writeFileSync('dist/esm/package.json', `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
