import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, moduleGraph, repo } from '../support/module-graph.js';

/** The replay is its own entry point: the core never loads it, and it reaches the core only through its faces. */
describe('the replay entry point', () => {
  it('is reachable from no other entry point', () => {
    for (const entry of [
      'src/index.ts',
      'src/lean/index.ts',
      'src/timeline/index.ts',
      'src/otel/index.ts',
      'src/store/index.ts',
    ]) {
      expect([...moduleGraph(entry)].filter((path) => path.startsWith('src/replay/'))).toEqual([]);
    }
  });

  it("imports only its own files, the machine's and the rates' faces, and xstate; node:fs and node:readline only when a file is read", () => {
    const own = [...moduleGraph('src/replay/index.ts')].filter((path) => path.startsWith('src/replay/'));
    const reached = own.flatMap((path) =>
      importsOf(join(repo, path))
        .map(({ specifier }) => specifier)
        .filter((specifier) => !specifier.startsWith('./')),
    );
    expect([...new Set(reached)].sort()).toEqual(['../machine/index.js', '../rate/index.js', 'xstate']);
    const read = readFileSync(join(repo, 'src/replay/read.ts'), 'utf8');
    expect(read).toContain("import('node:fs')");
    expect(read).not.toMatch(/^import .*node:/m);
  });

  it('is published as xstate-throttler/replay, for import and require, with types', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg.exports['./replay']).toEqual({
      import: { types: './dist/esm/replay/index.d.ts', default: './dist/esm/replay/index.js' },
      require: { types: './dist/cjs/replay/index.d.ts', default: './dist/cjs/replay/index.js' },
    });
    expect(pkg.typesVersions['*'].replay).toEqual(['./dist/cjs/replay/index.d.ts']);
  });
});
