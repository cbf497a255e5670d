import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What a newcomer needs from the README stays where they look for it (issue 24 §3): how a user
 * installs it, then the three commands for a clone, near the top; every example listed; the
 * Development section's edit loop and its check before a change is done. The long material lives in
 * docs/, so the README stays a guide.
 */
const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const lines = readme.split('\n');
const lineOf = (text: string) => lines.findIndex((line) => line.includes(text));

describe('README.md', () => {
  it('installs for users first, then shows the commands for a clone, within its first 60 lines', () => {
    const install = lineOf('npm install xstate-throttler xstate');
    const clone = ['npm install   #', 'npm test      #', 'npm start     #'].map(lineOf);
    expect(install).toBeGreaterThan(-1);
    expect(clone.every((line) => line > install && line < 60)).toBe(true);
  });

  it('lists every example', () => {
    const examples = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.ts'));
    expect(examples.filter((name) => !readme.includes(`](examples/${name})`))).toEqual([]);
  });

  it('keeps the Development section: test:quick for the edit loop, npm test before a change is done', () => {
    const development = readme.slice(readme.indexOf('\n## Development\n'));
    expect(development).toMatch(/\| `npm run test:quick` \| for the edit loop/);
    expect(development).toMatch(/\| `npm test` \| before a change is done/);
  });

  it('stays a guide: about 600 lines, the rest in docs/', () => {
    expect(lines.length).toBeLessThanOrEqual(650);
  });
});
