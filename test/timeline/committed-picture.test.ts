import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/** The README shows docs/timeline.svg: it must be what the renderer draws today, not an old picture. */
describe('docs/timeline.svg', () => {
  it('is what `npm run timeline` draws now', async () => {
    const repo = join(import.meta.dirname, '..', '..');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(repo, 'scripts', 'timeline.ts'), '--check'],
      { cwd: repo, timeout: 60_000, env: { ...process.env, NODE_NO_WARNINGS: '1' } },
    );
    expect(stdout).toMatch(/is up to date/);
  });
});
