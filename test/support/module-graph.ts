/** Which source files an entry point reaches, read from the import statements (for entry-point tests). */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository's root, for paths in module graphs. */
export const repo = join(import.meta.dirname, '..', '..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s(?:type\s)?[^'";]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'/g;

/** Every module specifier a source file imports or re-exports from, with whether it is type-only. */
export function importsOf(file: string): Array<{ specifier: string; typeOnly: boolean }> {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(IMPORT)].map((match) => ({
    specifier: (match[1] ?? match[2]) as string,
    typeOnly: /^\s*(?:import|export)\s+type\s/.test(match[0]),
  }));
}

/** The source files reachable from `entry` through relative imports, as paths relative to the repo. */
export function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    const path = relative(repo, file);
    if (seen.has(path)) return;
    seen.add(path);
    for (const { specifier } of importsOf(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
    }
  };
  visit(join(repo, entry));
  return seen;
}
