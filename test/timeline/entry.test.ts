import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, moduleGraph, repo } from '../support/module-graph.js';

/**
 * The timeline is its own entry point: users of the core never load it, and it loads nothing but
 * the rate parsing and xstate's types.
 */
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
      'src/rate/cost.ts',
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
