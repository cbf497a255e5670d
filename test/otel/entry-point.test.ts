import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleGraph, repo } from '../support/module-graph.js';

/** `xstate-throttler/otel` is its own entry point, with `@opentelemetry/api` an optional peer. */
describe('the otel entry point', () => {
  it('is never reached from the core entry point, nor from the other entry points', () => {
    for (const entry of ['src/index.ts', 'src/redis/index.ts', 'src/timeline/index.ts', 'src/server-limits/index.ts']) {
      const files = [...moduleGraph(entry)];
      expect(files.length).toBeGreaterThan(3);
      expect(files.filter((file) => file.startsWith('src/otel/'))).toEqual([]);
    }
  });

  it('package.json exports ./otel for import and require, with types, and @opentelemetry/api as an optional peer', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg.exports['./otel']).toEqual({
      import: { types: './dist/esm/otel/index.d.ts', default: './dist/esm/otel/index.js' },
      require: { types: './dist/cjs/otel/index.d.ts', default: './dist/cjs/otel/index.js' },
    });
    expect(pkg.peerDependencies['@opentelemetry/api']).toBeDefined();
    expect(pkg.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true });
    for (const name of ['@opentelemetry/api', '@opentelemetry/sdk-metrics', '@opentelemetry/exporter-prometheus'])
      expect(pkg.devDependencies[name], name).toBeDefined();
  });
});
