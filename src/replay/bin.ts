#!/usr/bin/env node
/** The package's bin (`npx xstate-throttler replay traffic.ndjson --rate 100/1s`): cli.ts with the process's streams. */
import { readFileSync } from 'node:fs';
import { main } from './cli.js';

main(
  process.argv.slice(2),
  { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
  (path) => readFileSync(path, 'utf8'),
).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `xstate-throttler: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
