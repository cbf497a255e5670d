import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, moduleGraph, repo } from '../support/module-graph.js';

/** Reading a server's limits is its own entry point: the core never loads it; it loads only the rate parsing. */
describe('the server-limits entry point', () => {
  it('is not reachable from the core entry point', () => {
    const core = moduleGraph('src/index.ts');
    expect(core.size).toBeGreaterThan(10);
    expect([...core].filter((path) => path.startsWith('src/server-limits'))).toEqual([]);
  });

  it('imports only its own files and the rate parsing, and no package', () => {
    const limits = moduleGraph('src/server-limits/index.ts');
    const outside = [...limits].filter((path) => !path.startsWith('src/server-limits/'));
    expect(outside.every((path) => path.startsWith('src/rate/'))).toBe(true);
    const packages = [...limits].flatMap((path) =>
      importsOf(join(repo, path)).filter(
        ({ specifier }) => !specifier.startsWith('.') && !specifier.startsWith('node:'),
      ),
    );
    expect(packages).toEqual([]);
  });

  it('is published as xstate-throttler/server-limits, for import and require, with types', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg.exports['./server-limits']).toEqual({
      import: { types: './dist/esm/server-limits/index.d.ts', default: './dist/esm/server-limits/index.js' },
      require: { types: './dist/cjs/server-limits/index.d.ts', default: './dist/cjs/server-limits/index.js' },
    });
  });
});
