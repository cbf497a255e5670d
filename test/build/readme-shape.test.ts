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

  it('names every input of the machine, every event it takes and every event it emits (api/main.api.txt), in its tables', () => {
    const report = readFileSync(join(root, 'api', 'main.api.txt'), 'utf8');
    const section = (heading: string) =>
      report.slice(report.indexOf(`\n${heading}\n`) + heading.length + 2).split(/\n(?=\S)/)[0] ?? '';
    const inputs = [...section('interface ThrottlerInput').matchAll(/^ {2}\.(\w+)$/gm)].map((match) => match[1]);
    const taken = [...section('type ThrottlerEvent').matchAll(/^ {2}event (\w+)$/gm)].map((match) => match[1]);
    const emitted = [...section('type ThrottlerEmitted').matchAll(/^ {2}event (\w+)$/gm)].map((match) => match[1]);
    expect(inputs.length).toBeGreaterThan(15);
    expect(taken.length).toBeGreaterThan(8);
    expect(emitted.length).toBeGreaterThan(12);
    const machine = readme.slice(
      readme.indexOf('\n## The machine\n'),
      readme.indexOf('\n## Inside your own machine\n'),
    );
    // A table row's first cell: where each input and event has its row.
    const firstCells = [...machine.matchAll(/^\|([^|\n]*)\|/gm)].map((match) => match[1] as string);
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const inTable = (text: string) =>
      firstCells.some((cell) => new RegExp(`(?<!\\w)${literal(text)}(?!\\w)`).test(cell));
    expect(inputs.filter((name) => !inTable(name as string))).toEqual([]);
    expect(taken.filter((type) => !inTable(`type: '${type}'`))).toEqual([]);
    expect(emitted.filter((type) => !inTable(type as string))).toEqual([]);
  });

  it('stays a guide: about 600 lines, the rest in docs/', () => {
    expect(lines.length).toBeLessThanOrEqual(650);
  });
});
