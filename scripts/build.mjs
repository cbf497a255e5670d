// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with .d.ts files,
// using only the TypeScript compiler, and marks each folder's module type.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';

const tsc = (...args) =>
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', ...args], { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
tsc('-p', 'tsconfig.build.json');
tsc('-p', 'tsconfig.build.json', '--module', 'commonjs', '--moduleResolution', 'node10', '--outDir', 'dist/cjs');
writeFileSync('dist/esm/package.json', `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
