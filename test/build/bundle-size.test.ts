import { describe, expect, it } from 'vitest';
import { GZIP_BUDGET_BYTES, measureCoreBundle } from '../../scripts/bundle-size.js';

describe('the core entry point, bundled for a browser', () => {
  it('stays within its budget minified and gzipped, and imports nothing but xstate and rxjs', async () => {
    const { gzipped, imports } = await measureCoreBundle();
    expect(gzipped).toBeLessThanOrEqual(GZIP_BUDGET_BYTES);
    expect(new Set(imports)).toEqual(new Set(['xstate', 'rxjs']));
  });
});
