import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FunctionShape, functionShapes } from '../support/function-shape.js';
import { importsOf, repo } from '../support/module-graph.js';

/**
 * The shape ARCHITECTURE.md promises: no import cycle anywhere in src/ or bench/ (type-only imports count
 * too: a cycle of types is a cycle of ideas), and, as STYLE.md asks, functions capped rather than files: no
 * function over 60 lines, none with more than 5 parameters (pass a record). The functions over either cap
 * today are listed below as debts, each with its number: the list may only shrink and stays true.
 */
function typeScriptFiles(folder: string): string[] {
  return (readdirSync(join(repo, folder), { recursive: true }) as string[])
    .filter((path) => path.endsWith('.ts'))
    .map((path) => join(repo, folder, path));
}

const sourceFiles = typeScriptFiles('src');

function edges(file: string): string[] {
  return importsOf(file)
    .filter(({ specifier }) => specifier.startsWith('.'))
    .map(({ specifier }) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'))
    .map((target) => (target.endsWith('.ts') ? target : join(target, 'index.ts')));
}

/** Every cycle's files, found by a depth-first walk (each cycle reported once, from where it was entered). */
function cycles(files: readonly string[], edgesOf: (file: string) => string[] = edges): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of edgesOf(file)) {
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)));
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (state.get(file) === undefined) visit(file);
  return found;
}

describe('the source tree', () => {
  it('has no import cycle', () => {
    expect(sourceFiles.length).toBeGreaterThan(50);
    expect(cycles(sourceFiles).map((cycle) => cycle.map((file) => relative(repo, file)))).toEqual([]);
  });

  it('has no import cycle in bench/ either (the report and W6 contenders share their types through files of their own)', () => {
    const benchFiles = typeScriptFiles('bench');
    expect(benchFiles.length).toBeGreaterThan(20);
    expect(cycles(benchFiles).map((cycle) => cycle.map((file) => relative(repo, file)))).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    // persisted-format.ts and scope-policies.ts imported each other's types until saved-policy.ts.
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
    ]);
    expect(cycles(['a', 'd'], (file) => graph.get(file) ?? [])).toEqual([['a', 'b', 'c']]);
    expect(cycles(['d'], (file) => graph.get(file) ?? [])).toEqual([]);
  });

  it('keeps the engine free of XState: src/engine/ imports only itself, src/rate/ and src/policies/', () => {
    const engine = sourceFiles.filter((file) => relative(repo, file).startsWith('src/engine/'));
    expect(engine.length).toBeGreaterThan(20);
    const outside = engine.flatMap((file) =>
      importsOf(file)
        .filter(({ specifier }) => !specifier.startsWith('.'))
        .map(({ specifier }) => `${relative(repo, file)} -> ${specifier}`),
    );
    expect(outside).toEqual([]);
    const allowed = ['src/engine/', 'src/rate/', 'src/policies/'];
    const reached = engine.flatMap((file) =>
      edges(file)
        .map((target) => relative(repo, target))
        .filter((target) => !allowed.some((folder) => target.startsWith(folder)))
        .map((target) => `${relative(repo, file)} -> ${target}`),
    );
    expect(reached).toEqual([]);
  });

  it('lets the stores, the adapters and the metrics reach the engine through its face only, and the stores never the machine', () => {
    const clients = sourceFiles.filter((file) => /^src\/(store|redis|adapters|otel)\//.test(relative(repo, file)));
    const wrong = clients.flatMap((file) =>
      edges(file)
        .map((target) => relative(repo, target))
        .filter(
          (target) =>
            (target.startsWith('src/engine/') && target !== 'src/engine/index.ts') ||
            (/^src\/(store|redis)\//.test(relative(repo, file)) && target.startsWith('src/machine/')),
        )
        .map((target) => `${relative(repo, file)} -> ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it('lets the adapters reach the machine through its face only (src/machine/index.ts)', () => {
    const adapters = sourceFiles.filter((file) => relative(repo, file).startsWith('src/adapters/'));
    expect(adapters.length).toBeGreaterThan(10);
    const deep = adapters.flatMap((file) =>
      edges(file)
        .map((target) => relative(repo, target))
        .filter((target) => target.startsWith('src/machine/') && target !== 'src/machine/index.ts')
        .map((target) => `${relative(repo, file)} -> ${target}`),
    );
    expect(
      deep,
      'src/adapters/ imports src/machine/ only through src/machine/index.ts: export the name there and import it from ../machine/index.js',
    ).toEqual([]);
  });

  it('keeps the store client free of Redis: src/store/ never imports src/redis/, which builds on it; the engine knows neither', () => {
    const arrows = (from: string, to: string) =>
      sourceFiles
        .filter((file) => relative(repo, file).startsWith(from))
        .flatMap((file) =>
          edges(file)
            .map((target) => relative(repo, target))
            .filter((target) => target.startsWith(to))
            .map((target) => `${relative(repo, file)} -> ${target}`),
        );
    expect(sourceFiles.filter((file) => relative(repo, file).startsWith('src/store/')).length).toBeGreaterThan(15);
    expect(arrows('src/store/', 'src/redis/')).toEqual([]);
    // Packages too: the client and the memory store run where ioredis is not installed (a browser, a worker).
    const packages = sourceFiles
      .filter((file) => relative(repo, file).startsWith('src/store/'))
      .flatMap((file) =>
        importsOf(file)
          .filter(({ specifier }) => !specifier.startsWith('.'))
          .map(({ specifier }) => `${relative(repo, file)} -> ${specifier}`),
      );
    expect(packages).toEqual([]);
    expect(arrows('src/redis/', 'src/store/').length).toBeGreaterThan(0);
    expect([...arrows('src/engine/', 'src/store/'), ...arrows('src/engine/', 'src/redis/')]).toEqual([]);
  });

  it('imports OpenTelemetry only in src/otel/, and there for types only: the core never loads it', () => {
    const uses = sourceFiles.flatMap((file) =>
      importsOf(file)
        .filter(({ specifier }) => specifier.startsWith('@opentelemetry/'))
        .map(({ typeOnly }) => ({ file: relative(repo, file), typeOnly })),
    );
    expect(uses.length).toBeGreaterThan(0);
    expect(uses.filter(({ file, typeOnly }) => !file.startsWith('src/otel/') || !typeOnly)).toEqual([]);
  });

  it('keeps every function within 60 lines and 5 parameters, but for the debts listed (which may only shrink)', () => {
    const shapes = sourceFiles.flatMap((file) =>
      functionShapes(readFileSync(file, 'utf8'), file).map((shape) => ({ file: relative(repo, file), ...shape })),
    );
    expect(shapes.length).toBeGreaterThan(1000);
    expect(overCap(shapes, 'lines', MAX_FUNCTION_LINES, LONG_FUNCTION_DEBTS)).toEqual([]);
    expect(overCap(shapes, 'parameters', MAX_PARAMETERS, MANY_PARAMETER_DEBTS)).toEqual([]);
  });

  it('lists its debts sorted by file, then function, so the list reads as a ledger', () => {
    for (const debts of [LONG_FUNCTION_DEBTS, MANY_PARAMETER_DEBTS]) {
      const keys = debts.map(([file, name]) => [file, name] as const);
      const sorted = [...keys].sort(([fileA, nameA], [fileB, nameB]) =>
        fileA === fileB ? (nameA < nameB ? -1 : 1) : fileA < fileB ? -1 : 1,
      );
      expect(keys).toEqual(sorted);
    }
  });

  it('finds a long function, a long parameter list and a nested arrow in a sample source (the check itself)', () => {
    const body = Array.from({ length: 61 }, (_, index) => `  const v${index} = ${index};`).join('\n');
    const sample = [
      `export function long(a: number, b: number, c: number, d: number, e: number, f: number): void {`,
      body,
      `  const inner = (x: number) => {`,
      `    return x;`,
      `  };`,
      `}`,
      `class Box { constructor(private readonly a: number) {} get size(): number { return 1; } }`,
    ].join('\n');
    expect(functionShapes(sample)).toEqual([
      // From the line of { to the line of }: the inner arrow's 3 lines count within long's 66 too.
      { name: 'long', lines: 66, parameters: 6 },
      { name: 'long > inner', lines: 3, parameters: 1 },
      { name: 'Box.constructor', lines: 1, parameters: 1 },
      { name: 'Box.size', lines: 1, parameters: 0 },
    ]);
    const shapes = functionShapes(sample).map((shape) => ({ file: 'sample.ts', ...shape }));
    expect(overCap(shapes, 'lines', MAX_FUNCTION_LINES, [])).toEqual(['new: sample.ts long has 66 lines (cap 60)']);
    expect(overCap(shapes, 'parameters', MAX_PARAMETERS, [['sample.ts', 'long', 5]])).toEqual([
      'grown: sample.ts long has 6 parameters, its debt says 5',
    ]);
    expect(
      overCap(shapes, 'lines', MAX_FUNCTION_LINES, [
        ['sample.ts', 'gone', 70],
        ['sample.ts', 'long', 66],
      ]),
    ).toEqual(['fixed: sample.ts gone is within 60 lines now (or renamed): take it off the debts']);
  });

  it('keeps every file under 600 lines, a backstop only', () => {
    // The function caps do the real work; this catches a file that grows by ever more short functions, which
    // by 600 lines is nearly always two jobs in one file (the largest today is about 345).
    const long = sourceFiles
      .map((file) => ({ file: relative(repo, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
  });
});

const MAX_FUNCTION_LINES = 60;
const MAX_PARAMETERS = 5;

/** A function over a cap today: its file, its name (as function-shape.ts names it) and its number, a ceiling. */
type Debt = readonly [file: string, name: string, count: number];

/** What breaks a cap: a new function over it, a debt grown past its number, or a debt paid (to take off). */
function overCap(
  shapes: ReadonlyArray<FunctionShape & { file: string }>,
  measure: 'lines' | 'parameters',
  cap: number,
  debts: readonly Debt[],
): string[] {
  const owed = new Map(debts.map(([file, name, count]) => [`${file} ${name}`, count]));
  const over = new Map(
    shapes.filter((shape) => shape[measure] > cap).map((shape) => [`${shape.file} ${shape.name}`, shape[measure]]),
  );
  const problems: string[] = [];
  for (const [key, count] of over) {
    const debt = owed.get(key);
    if (debt === undefined) problems.push(`new: ${key} has ${count} ${measure} (cap ${cap})`);
    else if (count > debt) problems.push(`grown: ${key} has ${count} ${measure}, its debt says ${debt}`);
  }
  for (const key of owed.keys()) {
    if (!over.has(key))
      problems.push(`fixed: ${key} is within ${cap} ${measure} now (or renamed): take it off the debts`);
  }
  return problems;
}

/** Functions over 60 lines when the cap came in (issue 35): each to split by the one who next changes it. */
const LONG_FUNCTION_DEBTS: readonly Debt[] = [
  ['src/adapters/rxjs.ts', 'throttleQueue', 119],
  ['src/adapters/rxjs.ts', 'throttleQueue > (returned)', 81],
  ['src/adapters/rxjs.ts', 'throttleQueue > (returned) > (given to new Observable)', 81],
  ['src/engine/options/options.ts', 'resolveOptionsKnowing', 81],
  ['src/machine/accept.ts', 'acceptMessage', 76],
  ['src/machine/throttler-machine.ts', 'machineKnowing', 170],
  ['src/otel/instrument.ts', 'instrumentThrottler', 74],
  ['src/redis/redis-store.ts', 'createRedisStore', 69],
];

/** Functions with more than 5 parameters when the cap came in (issue 35): each to take a record instead. */
const MANY_PARAMETER_DEBTS: readonly Debt[] = [
  ['src/engine/clearance/local-clearance.ts', 'LocalClearance.settleDelivery', 6],
  ['src/engine/dispatcher.ts', 'Dispatcher.enqueue', 7],
  ['src/engine/queue/message-queues.ts', 'MessageQueues.enqueue', 7],
  ['src/engine/queue/queued-message.ts', 'SelfQueuedMessage.enter', 7],
  ['src/engine/queue/queued-message.ts', 'queueEntry', 8],
  ['src/machine/accept.ts', 'acceptMessage', 6],
  ['src/machine/accept.ts', 'acceptQueued', 6],
  ['src/machine/deliver.ts', 'sendWhatIsDue', 6],
  ['src/redis/shared-limiter.ts', 'RedisSharedLimiter.constructor', 8],
  ['src/server-limits/field-values.ts', 'utc', 6],
  ['src/server-limits/ietf-fields.ts', 'readPolicies', 6],
  ['src/server-limits/provider-fields.ts', 'readQuota', 7],
  ['src/store/grant-rewind.ts', 'GrantRewind.constructor', 6],
  ['src/store/memory-retime.ts', 'fitsMove', 7],
  ['src/store/memory-state.ts', 'MemoryState.settle', 6],
  ['src/store/reserve-calls.ts', 'ReserveCalls.constructor', 7],
  ['src/store/settle-room.ts', 'SettleRoom.constructor', 7],
  ['src/timeline/activity.ts', 'drawActivity', 6],
];
