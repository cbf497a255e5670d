import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repo } from '../support/module-graph.js';

/**
 * Every ```ts / ```typescript block of README.md and docs/*.md compiles as a user would paste it into
 * a project of their own: `tsc --strict`, each block a module of its own importing the package by its
 * name (mapped to src/, so no build is needed), under node16 resolution (an ES module, where
 * `import Redis from 'ioredis'` does not compile) and under bundler resolution.
 *
 * Two markers, each an HTML comment on the lines right above a fence, which rendered Markdown does not
 * show:
 *
 *     <!-- snippet: given declare const urls: string[]; -->
 *
 * compiles the block after that code: the names a block uses as placeholders (a URL, the actor of an
 * earlier block), declared rather than written into what a reader copies; its imports stay visible in
 * the block. Several `given` lines add up.
 *
 *     <!-- snippet: fragment -->
 *
 * skips a block that is deliberately not code on its own (a line of an options object, a signature).
 * Keep those rare: a block that can compile should.
 */
const FRAGMENT_MARKER = '<!-- snippet: fragment -->';
const GIVEN = /^<!-- snippet: given (.*) -->$/;

interface Snippet {
  /** `README.md block 3 (line 148)`, as a failure names it. */
  readonly label: string;
  /** The `given` declarations, then the block, then `export {}`: a module, as a user's file is. */
  readonly code: string;
  /** Lines of `given` before the block's first line, so that a diagnostic names the block's own line. */
  readonly offset: number;
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(repo, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`);
  return ['README.md', ...docs.sort()];
}

function snippetsOf(file: string): { snippets: Snippet[]; fragments: number } {
  const lines = readFileSync(join(repo, file), 'utf8').split('\n');
  const snippets: Snippet[] = [];
  let fragments = 0;
  let block = 0;
  for (let at = 0; at < lines.length; at++) {
    const fence = /^(\s*)```(ts|typescript)\s*$/.exec(lines[at] as string);
    if (fence === null) continue;
    block++;
    const end = lines.findIndex((line, index) => index > at && /^\s*```\s*$/.test(line));
    if (end === -1) throw new Error(`${file}: the \`\`\`ts block at line ${at + 1} is never closed`);
    const indent = (fence[1] as string).length;
    const code = lines
      .slice(at + 1, end)
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    const markers: string[] = [];
    for (let above = at - 1; above >= 0 && (lines[above] as string).trim().startsWith('<!-- snippet:'); above--) {
      markers.unshift((lines[above] as string).trim());
    }
    const given = markers.map((marker) => GIVEN.exec(marker)?.[1]).filter((line) => line !== undefined);
    const unknown = markers.filter((marker) => marker !== FRAGMENT_MARKER && !GIVEN.test(marker));
    if (unknown.length > 0) throw new Error(`${file}, block at line ${at + 1}: unknown marker ${unknown[0]}`);
    if (markers.includes(FRAGMENT_MARKER)) fragments++;
    else {
      const label = `${file} block ${block} (line ${at + 1})`;
      snippets.push({ label, code: [...given, code, 'export {};'].join('\n'), offset: given.length });
    }
    at = end;
  }
  return { snippets, fragments };
}

const RESOLUTIONS = {
  node16: {
    extension: '.mts',
    options: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
  },
  bundler: {
    extension: '.ts',
    options: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
  },
} as const;

/**
 * Declaration files parsed once for both resolutions (most of the parsing: the libs, @types/node, the
 * dependencies' types). A declaration file's syntax tree depends on the file and on what the host is
 * asked for (language version, module format), never on the resolution (a declaration file is never
 * forced to be a module by its format), so a tree keyed on those is the one the other program would
 * parse; the binder binds a tree once, with options both programs share. The snippets and src/ are
 * parsed per program.
 */
const declarationFiles = new Map<string, ts.SourceFile>();

function declarationFileKey(name: string, languageVersionOrOptions: ts.ScriptTarget | ts.CreateSourceFileOptions) {
  const { languageVersion, impliedNodeFormat, jsDocParsingMode } =
    typeof languageVersionOrOptions === 'object'
      ? languageVersionOrOptions
      : { languageVersion: languageVersionOrOptions };
  return JSON.stringify([name, languageVersion, impliedNodeFormat, jsDocParsingMode]);
}

/** Each snippet's diagnostics under one resolution, by its label. */
function typeCheck(snippets: readonly Snippet[], resolution: keyof typeof RESOLUTIONS): Map<string, string[]> {
  const { extension, options: moduleOptions } = RESOLUTIONS[resolution];
  const options: ts.CompilerOptions = {
    ...moduleOptions,
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
    // The package by its name, as a user imports it: its source, so the test needs no build.
    paths: {
      'xstate-throttler': [join(repo, 'src/index.ts')],
      'xstate-throttler/*': [join(repo, 'src/*/index.ts')],
    },
  };
  // Each snippet a module of its own in a folder of the repository, so that node_modules resolves.
  const files = new Map(
    snippets.map((snippet, index) => [join(repo, '.snippets', `snippet-${index}${extension}`), snippet]),
  );
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name)?.code ?? readFile.call(host, name);
  host.getSourceFile = (name, languageVersion, ...rest) => {
    const snippet = files.get(name);
    if (snippet !== undefined) return ts.createSourceFile(name, snippet.code, languageVersion, true);
    if (!name.endsWith('.d.ts') && !name.endsWith('.d.mts') && !name.endsWith('.d.cts'))
      return getSourceFile.call(host, name, languageVersion, ...rest);
    const key = declarationFileKey(name, languageVersion);
    const parsed = declarationFiles.get(key) ?? getSourceFile.call(host, name, languageVersion, ...rest);
    if (parsed !== undefined) declarationFiles.set(key, parsed);
    return parsed;
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const found = new Map<string, string[]>();
  for (const [name, snippet] of files) {
    const source = program.getSourceFile(name);
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    found.set(
      snippet.label,
      diagnostics.map((diagnostic) => {
        const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
        if (diagnostic.file === undefined || diagnostic.start === undefined) return text;
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        const where =
          line < snippet.offset ? `its given line ${line + 1}` : `line ${line + 1 - snippet.offset} of the block`;
        return `${where}: ${text}`;
      }),
    );
  }
  return found;
}

/** One compilation of every block took 85 s beside other work on a two-core machine (load 30): its own bound. */
const COMPILE_TIMEOUT_MS = 300_000;

const extracted = markdownFiles().map((file) => ({ file, ...snippetsOf(file) }));
const snippets = extracted.flatMap(({ snippets: found }) => found);

describe('the TypeScript blocks of README.md and docs/*.md', () => {
  it('are found, and few are marked as fragments', () => {
    expect(snippets.length).toBeGreaterThan(10);
    const fragments = extracted.reduce((sum, { fragments: count }) => sum + count, 0);
    expect(fragments, `more than one block in ten is marked ${FRAGMENT_MARKER}`).toBeLessThanOrEqual(
      Math.ceil(snippets.length / 10),
    );
  });

  it.each(Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[])(
    'compile under tsc --strict with %s resolution',
    (resolution) => {
      const failures = [...typeCheck(snippets, resolution)].filter(([, diagnostics]) => diagnostics.length > 0);
      const report = failures.map(([label, diagnostics]) => `${label}:\n  ${diagnostics.join('\n  ')}`).join('\n');
      expect(
        failures.map(([label]) => label),
        `These blocks do not compile (${resolution}); fix them, or mark a deliberate fragment with ` +
          `${FRAGMENT_MARKER} on the line above its fence:\n${report}`,
      ).toEqual([]);
    },
    COMPILE_TIMEOUT_MS,
  );
});
