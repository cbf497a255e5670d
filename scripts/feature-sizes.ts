// What each feature costs an app: the bundle of one entry (scripts/bundle-size.ts) split by the modules of
// each feature group. A group's gzipped cost is marginal: the gzipped bundle less the gzipped bundle with
// that group's bytes cut out (found through the source map), so what the rest of the bundle shares with it
// (the compressor's back-references) is not counted twice. `npm run size:features [-- <entry name part>]`
// prints the table docs/size.md shows; the default entry is the lean createThrottler with one strategy and
// every feature (`-- "one strategy (slidingWindow)"` for none).
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import ts from 'typescript';
import { appBundle, ENTRIES, type SizedEntry } from './bundle-size.js';

/** A feature and the source files that are it (paths from the repository root, as esbuild names them). */
export interface FeatureGroup {
  readonly name: string;
  readonly files: readonly string[];
}

export const FEATURE_GROUPS: readonly FeatureGroup[] = [
  {
    name: 'dimensions and cost vectors',
    files: [
      'src/policies/dimensions.ts',
      'src/engine/clearance/dimensions-feature.ts',
      'src/rate/cost.ts',
      'src/engine/clearance/cost-check.ts',
    ],
  },
  {
    name: "settle book (ACTUAL_COST, a task's settle)",
    files: ['src/engine/clearance/settle-book.ts', 'src/engine/clearance/settle-actual.ts'],
  },
  { name: 'in flight (maxConcurrent, countUntil done)', files: ['src/engine/clearance/in-flight.ts'] },
  { name: 'weighted fairness', files: ['src/engine/fair-share.ts', 'src/engine/options/fairness-option.ts'] },
  {
    name: 'keys template',
    files: ['src/engine/options/keys-option.ts', 'src/engine/clearance/keys-by-use.ts'],
  },
  {
    name: 'priorities, lanes and the retry lane',
    files: ['src/engine/queue/lane.ts', 'src/engine/queue/retry-lane.ts'],
  },
  {
    name: 'the window audit',
    files: [
      'src/engine/audit/window-audit.ts',
      'src/engine/audit/throttler-audit.ts',
      'src/engine/audit/window-findings.ts',
      'src/engine/audit/audit-feature.ts',
      'src/machine/audit.ts',
    ],
  },
  {
    name: 'retries',
    files: ['src/adapters/task-retry.ts', 'src/adapters/retry-budget.ts', 'src/adapters/retry-feature.ts'],
  },
  {
    name: 'deadlines and timeouts',
    files: ['src/engine/queue/deadlines.ts', 'src/machine/expired-error.ts', 'src/adapters/task-timeout.ts'],
  },
  {
    name: 'leases',
    files: ['src/engine/clearance/lease.ts', 'src/machine/lease-actions.ts', 'src/adapters/task-lease.ts'],
  },
  {
    name: 'transit (option and measured meter)',
    files: [
      'src/engine/clearance/transit-meter.ts',
      'src/engine/options/transit-option.ts',
      'src/engine/options/transit-feature.ts',
    ],
  },
  {
    name: 'overflow',
    files: ['src/engine/queue/overflow-choice.ts', 'src/machine/overflow-error.ts'],
  },
  {
    name: 'option-name suggestions (edit distance)',
    files: ['src/engine/options/option-names.ts', 'src/engine/options/option-hints.ts'],
  },
  { name: 'the features option itself', files: ['src/engine/options/features-option.ts'] },
  {
    name: 'persistence and the saved format',
    files: [
      'src/engine/saved/persisted-format.ts',
      'src/engine/saved/persisted-message.ts',
      'src/engine/saved/persisted-keys.ts',
      'src/engine/saved/saved-policy.ts',
      'src/engine/dispatcher-state.ts',
      'src/machine/persistence.ts',
      'src/policies/saved-fields.ts',
    ],
  },
  { name: 'inspection', files: ['src/machine/inspection.ts'] },
  { name: "the chart's descriptions", files: ['src/machine/chart-descriptions.ts'] },
  {
    name: 'p-queue readers (runningTasks, onRateLimit, ...)',
    files: ['src/adapters/task-readers.ts', 'src/adapters/rate-limit-watch.ts'],
  },
];

export interface FeatureCost {
  readonly name: string;
  readonly minified: number;
  /** gzip(bundle) - gzip(bundle without the group). */
  readonly gzipped: number;
}

export interface FeatureSizes {
  readonly minified: number;
  readonly gzipped: number;
  readonly features: FeatureCost[];
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The segments of a source map's `mappings`: [line, column, source index] each, in output order. */
function decodeMappings(mappings: string): [number, number, number][] {
  const segments: [number, number, number][] = [];
  let source = 0;
  for (const [line, text] of mappings.split(';').entries()) {
    let column = 0;
    for (const segment of text.split(',')) {
      if (segment === '') continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0] ?? 0;
      if (fields.length >= 4) source += fields[1] ?? 0;
      segments.push([line, column, fields.length >= 4 ? source : -1]);
    }
  }
  return segments;
}

/** Which source each byte of `text` came from (-1: none), by the source map's segments. */
function ownerOfEachChar(text: string, segments: [number, number, number][]): Int32Array {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const owners = new Int32Array(text.length).fill(-1);
  for (let i = 0; i < segments.length; i++) {
    const [line, column, source] = segments[i] as [number, number, number];
    const start = (lineStarts[line] ?? text.length) + column;
    const next = segments[i + 1];
    const lineEnd = line + 1 < lineStarts.length ? (lineStarts[line + 1] as number) : text.length;
    const end = next === undefined ? lineEnd : Math.min(lineEnd, (lineStarts[next[0]] ?? text.length) + next[1]);
    owners.fill(source, start, end);
  }
  return owners;
}

const gzipLength = (text: string) => gzipSync(text, { level: 9 }).length;

/** `text` without the characters `drop` picks. */
function without(text: string, drop: (index: number) => boolean): string {
  let kept = '';
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i === text.length || drop(i)) {
      kept += text.slice(runStart, i);
      runStart = i + 1;
    }
  }
  return kept;
}

/** The bytes of every string and template literal's text in `text` (a script), to cut out. */
function literalChars(text: string): Uint8Array {
  const inLiteral = new Uint8Array(text.length);
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, true, ts.LanguageVariant.Standard, text);
  // Open braces inside each template substitution: a `}` at 0 resumes the template.
  const braces: number[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.OpenBraceToken && braces.length > 0)
      braces[braces.length - 1] = (braces.at(-1) as number) + 1;
    if (kind === ts.SyntaxKind.CloseBraceToken && braces.length > 0) {
      const open = braces.at(-1) as number;
      if (open === 0) kind = scanner.reScanTemplateToken(false);
      else braces[braces.length - 1] = open - 1;
    }
    if (kind === ts.SyntaxKind.TemplateHead) braces.push(0);
    if (kind === ts.SyntaxKind.TemplateTail) braces.pop();
    const literal =
      kind === ts.SyntaxKind.StringLiteral ||
      kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral ||
      kind === ts.SyntaxKind.TemplateHead ||
      kind === ts.SyntaxKind.TemplateMiddle ||
      kind === ts.SyntaxKind.TemplateTail;
    // Keep the quotes and `${`: the text inside is what a message costs.
    if (literal) inLiteral.fill(1, scanner.getTokenStart() + 1, scanner.getTokenEnd() - 1);
  }
  return inLiteral;
}

export async function measureFeatures(entry: SizedEntry, groups = FEATURE_GROUPS): Promise<FeatureSizes> {
  const result = await build({ ...appBundle(entry), sourcemap: 'external', outfile: 'bundle.js' });
  const code = result.outputFiles.find((file) => file.path.endsWith('.js'));
  const map = result.outputFiles.find((file) => file.path.endsWith('.map'));
  if (code === undefined || map === undefined) throw new Error('esbuild wrote no bundle or no source map');
  const { sources, mappings } = JSON.parse(map.text) as { sources: string[]; mappings: string };
  const owners = ownerOfEachChar(code.text, decodeMappings(mappings));
  const gzipped = gzipLength(code.text);
  const features = groups.map(({ name, files }) => {
    const indexes = new Set(
      sources.flatMap((source, index) => (files.some((file) => source.endsWith(file)) ? [index] : [])),
    );
    const dropped = (index: number) => indexes.has(owners[index] as number);
    let minified = 0;
    for (let i = 0; i < owners.length; i++) if (dropped(i)) minified++;
    return { name, minified, gzipped: minified === 0 ? 0 : gzipped - gzipLength(without(code.text, dropped)) };
  });
  const literals = literalChars(code.text);
  const literalCount = literals.reduce((sum, bit) => sum + bit, 0);
  features.push({
    name: 'string texts (error messages, mostly)',
    minified: literalCount,
    gzipped: gzipped - gzipLength(without(code.text, (index) => literals[index] === 1)),
  });
  return { minified: code.contents.length, gzipped, features };
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

// Run as a script (`npm run size:features`), not when a test imports it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const wanted = process.argv.slice(2).find((arg) => !arg.startsWith('-')) ?? 'every feature';
  const entry = ENTRIES.find(({ name }) => name.includes(wanted));
  if (entry === undefined) throw new Error(`no entry named like ${wanted}: see scripts/bundle-size.ts`);
  const { minified, gzipped, features } = await measureFeatures(entry);
  console.log(`${entry.name}: ${kB(minified)} minified, ${kB(gzipped)} gzipped\n`);
  console.log('| feature | minified | gzipped (marginal) |\n| --- | --- | --- |');
  for (const feature of [...features].sort((a, b) => b.gzipped - a.gzipped)) {
    console.log(`| ${feature.name} | ${kB(feature.minified)} | ${kB(feature.gzipped)} |`);
  }
}
