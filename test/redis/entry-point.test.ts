import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The Redis store is its own entry point: browser users and users without Redis never load it.
 * Checked on the sources: nothing reachable from src/index.ts imports src/redis.
 */
const src = join(import.meta.dirname, '..', '..', 'src');

function reachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      visit(resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')));
    }
  };
  visit(entry);
  return seen;
}

describe('entry points', () => {
  it('the core entry point never reaches src/redis', () => {
    const files = [...reachableFrom(join(src, 'index.ts'))];
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((file) => file.includes(`${join(src, 'redis')}`))).toEqual([]);
  });

  it('the redis entry point imports no Redis client at run time (the user passes theirs)', () => {
    for (const file of reachableFrom(join(src, 'redis', 'index.ts'))) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/from 'ioredis'|require\('ioredis'\)/);
    }
  });

  it('package.json exports ./redis for import and require, with types, and ioredis as an optional peer', () => {
    const pkg = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8'));
    expect(pkg.exports['./redis']).toEqual({
      import: { types: './dist/esm/redis/index.d.ts', default: './dist/esm/redis/index.js' },
      require: { types: './dist/cjs/redis/index.d.ts', default: './dist/cjs/redis/index.js' },
    });
    expect(pkg.peerDependencies.ioredis).toBeDefined();
    expect(pkg.peerDependenciesMeta.ioredis).toEqual({ optional: true });
    expect(pkg.devDependencies.ioredis).toBeDefined();
  });
});
