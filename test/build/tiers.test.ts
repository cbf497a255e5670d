import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGE_SUITES, SLOW_SUITES } from '../support/tiers.js';

/**
 * The test tiers (test/support/tiers.ts): `npm test` runs every file, `npm run test:quick` every
 * one but the slow tier's. A file is quick unless listed, so none can fall out of both; a listed
 * file that was renamed or removed would leave its new name in the quick tier unnoticed.
 */
const repo = join(import.meta.dirname, '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(repo, path)] : [];
  });
}

describe('the test tiers', () => {
  const all = testFiles(join(repo, 'test'));

  it('lists only test files that exist, each once, none of them the page test', () => {
    for (const file of [...SLOW_SUITES, ...PAGE_SUITES]) expect(all).toContain(file);
    expect(new Set(SLOW_SUITES).size).toBe(SLOW_SUITES.length);
    expect(SLOW_SUITES.filter((file) => PAGE_SUITES.includes(file))).toEqual([]);
  });

  it('runs everything with npm test (as CI does) and the quick tier with npm run test:quick', () => {
    const { scripts } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.test).toBe('vitest run');
    // The edit loop makes a tenth of each property's runs (test/support/property-runs.ts); npm test makes all.
    expect(scripts['test:quick']).toBe('PROPERTY_RUNS=0.1 vitest run --project node');
    expect(readFileSync(join(repo, '.ci', 'run'), 'utf8')).toMatch(/^npm test\b/m);
  });
});
