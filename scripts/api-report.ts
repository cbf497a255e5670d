/**
 * The API report: every name each entry point exports, with its kind, the event types of the event
 * unions and the members of the interfaces, read by the TypeScript compiler from the source entry files (so types count
 * too). `npm run api:report` writes api/<entry>.api.txt; test/build/api-report.test.ts fails when
 * the source's surface differs from the checked-in report, so any change to it is a visible diff,
 * and when a name has no heading in docs/reference.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');

export interface EntryPoint {
  /** The report's file name: api/<name>.api.txt. */
  readonly name: string;
  /** What users import. */
  readonly specifier: string;
  /** The source entry file, from the repository's root. */
  readonly file: string;
}

export const ENTRY_POINTS: readonly EntryPoint[] = [
  { name: 'main', specifier: 'xstate-throttler', file: 'src/index.ts' },
  { name: 'lean', specifier: 'xstate-throttler/lean', file: 'src/lean/index.ts' },
  { name: 'strategies', specifier: 'xstate-throttler/strategies', file: 'src/strategies/index.ts' },
  { name: 'store', specifier: 'xstate-throttler/store', file: 'src/store/index.ts' },
  { name: 'redis', specifier: 'xstate-throttler/redis', file: 'src/redis/index.ts' },
  { name: 'rxjs', specifier: 'xstate-throttler/rxjs', file: 'src/rxjs/index.ts' },
  { name: 'server-limits', specifier: 'xstate-throttler/server-limits', file: 'src/server-limits/index.ts' },
  { name: 'timeline', specifier: 'xstate-throttler/timeline', file: 'src/timeline/index.ts' },
  { name: 'otel', specifier: 'xstate-throttler/otel', file: 'src/otel/index.ts' },
  { name: 'replay', specifier: 'xstate-throttler/replay', file: 'src/replay/index.ts' },
];

/** One exported name: its kind, the event types of a union of events, the members of an interface. */
export interface ExportedName {
  readonly name: string;
  readonly kind: string;
  readonly eventTypes: readonly string[];
  readonly members: readonly string[];
}

export function reportPath(entry: EntryPoint): string {
  return join(root, 'api', `${entry.name}.api.txt`);
}

function kindOf(symbol: ts.Symbol): string {
  const { flags } = symbol;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.BlockScopedVariable) return 'const';
  if (flags & ts.SymbolFlags.Variable) return 'var';
  return 'other';
}

/** The `type` literals of a union whose every member has one (`ThrottlerEvent`, `ThrottlerEmitted`). */
function eventTypesOf(checker: ts.TypeChecker, symbol: ts.Symbol): string[] {
  if (!(symbol.flags & ts.SymbolFlags.TypeAlias)) return [];
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  if (!type.isUnion()) return [];
  const types: string[] = [];
  for (const member of type.types) {
    const typeProperty = member.getProperty('type');
    const declaration = typeProperty?.valueDeclaration ?? typeProperty?.declarations?.[0];
    if (typeProperty === undefined || declaration === undefined) return [];
    const literal = checker.getTypeOfSymbolAtLocation(typeProperty, declaration);
    if (!literal.isStringLiteral()) return [];
    types.push(literal.value);
  }
  return [...new Set(types)].sort();
}

/** An interface's properties and methods, inherited ones included. */
function membersOf(checker: ts.TypeChecker, symbol: ts.Symbol): string[] {
  if (!(symbol.flags & ts.SymbolFlags.Interface)) return [];
  return checker
    .getDeclaredTypeOfSymbol(symbol)
    .getProperties()
    .map((member) => member.name)
    .sort();
}

/** The compiler's view of every entry point's source, as tsconfig.json sets it up. */
export function surfaceProgram(): ts.Program {
  const files = ENTRY_POINTS.map((entry) => join(root, entry.file));
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  return ts.createProgram(files, config.options);
}

/** Every entry point's exports, as the compiler sees them in the source. */
export function readSurface(program: ts.Program = surfaceProgram()): Map<EntryPoint, ExportedName[]> {
  const files = ENTRY_POINTS.map((entry) => join(root, entry.file));
  const checker = program.getTypeChecker();
  const surface = new Map<EntryPoint, ExportedName[]>();
  for (const [index, entry] of ENTRY_POINTS.entries()) {
    const source = program.getSourceFile(files[index] as string);
    const module = source && checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${entry.file} could not be read`);
    const names = checker.getExportsOfModule(module).map((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      return {
        name: exported.name,
        kind: kindOf(symbol),
        eventTypes: eventTypesOf(checker, symbol),
        members: membersOf(checker, symbol),
      };
    });
    const key = (name: string): string => `${name.toLowerCase()} ${name}`;
    surface.set(
      entry,
      names.sort((a, b) => (key(a.name) < key(b.name) ? -1 : 1)),
    );
  }
  return surface;
}

/** The report's text for one entry point. */
export function formatReport(entry: EntryPoint, names: readonly ExportedName[]): string {
  const lines = [
    `# ${entry.specifier} (${entry.file}): ${names.length} exported names`,
    '# Written by `npm run api:report`; test/build/api-report.test.ts compares it with the source.',
    '',
  ];
  for (const { name, kind, eventTypes, members } of names) {
    lines.push(`${kind} ${name}`);
    for (const type of eventTypes) lines.push(`  event ${type}`);
    for (const member of members) lines.push(`  .${member}`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [entry, names] of readSurface()) {
    writeFileSync(reportPath(entry), formatReport(entry, names));
    console.log(`api/${entry.name}.api.txt: ${names.length} names (${entry.specifier})`);
  }
}
