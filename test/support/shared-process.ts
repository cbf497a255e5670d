import fc from 'fast-check';
import { afterEach, expect } from 'vitest';
import { DEFAULT_RUNS } from './property-runs.js';

// A property that names no run count makes fast-check's default, scaled like the others (property-runs.ts).
fc.configureGlobal({ numRuns: DEFAULT_RUNS });

/**
 * A setup file (vitest.config.ts): it runs before each test file, and the files of the quick tier share
 * a process (`isolate: false`). A file that leaves a global replaced (a fake timer, a spy, a stub) would
 * break the files after it far from the cause, as a hang: each file instead starts by checking that the
 * runtime's timers and clocks are those the process started with, and fails naming the file before it.
 */
const GLOBALS = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'queueMicrotask',
  'Date',
  'MessageChannel',
  'performance',
] as const;

interface Originals {
  readonly globals: ReadonlyMap<string, unknown>;
  readonly dateNow: () => number;
  readonly performanceNow: () => number;
  lastFile: string;
}

const KEY = Symbol.for('xstate-throttler.test.originals');
const holder = globalThis as { [KEY]?: Originals };
const originals = (holder[KEY] ??= {
  globals: new Map(GLOBALS.map((name) => [name, globalThis[name]])),
  dateNow: Date.now,
  performanceNow: performance.now,
  lastFile: '(none: the first file of this process)',
});

const replaced = [
  ...GLOBALS.filter((name) => globalThis[name] !== originals.globals.get(name)),
  ...(Date.now === originals.dateNow ? [] : ['Date.now']),
  ...(performance.now === originals.performanceNow ? [] : ['performance.now']),
];
if (replaced.length > 0) {
  throw new Error(
    `${replaced.join(', ')} replaced when this file started, left so by ${originals.lastFile} (an earlier file ` +
      'in this process): restore fake timers, spies and stubs in that file',
  );
}

afterEach(() => {
  originals.lastFile = expect.getState().testPath ?? 'a file Vitest did not name';
});
