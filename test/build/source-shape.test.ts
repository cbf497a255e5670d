import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, repo } from '../support/module-graph.js';

/**
 * The shape ARCHITECTURE.md promises: no import cycle anywhere in src/ or bench/ (type-only imports count
 * too: a cycle of types is a cycle of ideas), and no source file over about 300 lines (one job a file).
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

  it('keeps every file under about 300 lines', () => {
    const long = sourceFiles
      .map((file) => ({ file: relative(repo, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 310);
    expect(long).toEqual([]);
  });
});
