import { describe, expect, it } from 'vitest';
import { ENTRIES, measureEntry } from '../../scripts/bundle-size.js';

/** Each entry point (and the core's two everyday names alone) bundled as an app would, minified and gzipped. */
describe.each(ENTRIES)('$name, bundled', (entry) => {
  it('stays within its gzipped budget and imports nothing but its peers', async () => {
    const { gzipped, imports, modules } = await measureEntry(entry);
    const heaviest = modules.slice(0, 8).map(({ path, bytes }) => `${path} ${bytes}`);
    expect(
      gzipped,
      `${entry.name}: ${gzipped} bytes gzipped; heaviest modules: ${heaviest.join(', ')}`,
    ).toBeLessThanOrEqual(entry.budget);
    const allowed = (path: string) =>
      entry.external.some((name) => (name.endsWith('*') ? path.startsWith(name.slice(0, -1)) : path === name));
    expect(imports.filter((path) => !allowed(path))).toEqual([]);
  });
});

describe('the core entry point', () => {
  it('never bundles rxjs, and an app that imports only createThrottler pays for no other adapter', async () => {
    const core = ENTRIES.find(({ name }) => name === 'xstate-throttler (every name)');
    const promiseOnly = ENTRIES.find(({ name }) => name === 'xstate-throttler: createThrottler alone');
    if (core === undefined || promiseOnly === undefined) throw new Error('the core entries are gone from ENTRIES');
    expect(new Set((await measureEntry(core)).imports)).toEqual(new Set(['xstate']));
    const { modules } = await measureEntry(promiseOnly);
    expect(
      modules.map(({ path }) => path).filter((path) => /adapters\/rxjs|inspection|persistence/.test(path)),
    ).toEqual([]);
  });
});
