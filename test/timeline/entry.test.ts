import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The timeline is its own entry point: users of the core never load it, and it loads nothing but
 * the rate parsing and xstate's types.
 */
const repo = join(import.meta.dirname, '..', '..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s(?:type\s)?[^'";]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'/g;

/** Every module specifier a source file imports or re-exports from, with whether it is type-only. */
function importsOf(file: string): Array<{ specifier: string; typeOnly: boolean }> {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(IMPORT)].map((match) => ({
    specifier: (match[1] ?? match[2]) as string,
    typeOnly: /^\s*(?:import|export)\s+type\s/.test(match[0]),
  }));
}

/** The source files reachable from `entry` through relative imports, as paths relative to the repo. */
function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    const path = relative(repo, file);
    if (seen.has(path)) return;
    seen.add(path);
    for (const { specifier } of importsOf(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
    }
  };
  visit(join(repo, entry));
  return seen;
}

describe('the timeline entry point', () => {
  it('is not reachable from the core entry point', () => {
    const core = moduleGraph('src/index.ts');
    expect(core.size).toBeGreaterThan(10);
    expect([...core].filter((path) => path.startsWith('src/timeline'))).toEqual([]);
  });

  it('imports only its own files, the rate parsing, and types from xstate', () => {
    const timeline = moduleGraph('src/timeline/index.ts');
    const outside = [...timeline].filter((path) => !path.startsWith('src/timeline/'));
    expect(outside.sort()).toEqual([
      'src/rate/duration.ts',
      'src/rate/errors.ts',
      'src/rate/index.ts',
      'src/rate/rate.ts',
    ]);
    const packages = [...timeline].flatMap((path) =>
      importsOf(join(repo, path)).filter(({ specifier }) => !specifier.startsWith('.')),
    );
    expect(packages).toEqual([{ specifier: 'xstate', typeOnly: true }]);
  });

  it('is published as xstate-throttler/timeline, for import and require, with types', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg.exports['./timeline']).toEqual({
      import: { types: './dist/esm/timeline/index.d.ts', default: './dist/esm/timeline/index.js' },
      require: { types: './dist/cjs/timeline/index.d.ts', default: './dist/cjs/timeline/index.js' },
    });
  });
});
