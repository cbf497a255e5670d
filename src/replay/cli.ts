/**
 * The package's command line (`npx xstate-throttler ...`, bin.ts): `replay` a recording through one or more
 * configurations and print the comparison table (or the reports as JSON), and `import` an access log as a
 * recording. Every flag is checked before anything is read, and a wrong one is refused naming the flag and
 * the value; `main` returns the exit code (0 done, 1 the recording or log was wrong, 2 the command was).
 */
import { describeValue, parseRates, ThrottlerOptionError } from '../rate/index.js';
import { createMemoryStore } from '../store/index.js';
import { type AccessLogImport, importAccessLog } from './access-log.js';
import { RecordingFormatError, readHeader } from './format.js';
import { recordingFile } from './read.js';
import { compare } from './replay.js';
import type { ReplayConfiguration } from './replay-run.js';
import type { ReplayReport } from './report.js';

/** Where the command writes: what it prints, and what it says went wrong. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** A command line the CLI refuses: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `Usage:
  xstate-throttler replay <recording.ndjson> [configuration flags] [--config <file.json|json>]... [--json]
  xstate-throttler import <access.log> [--format combined|plain] [--key-pattern <regex>] [--out <file>]

replay: runs the recording through each configuration in virtual time and prints a table, one column
per configuration, the recorded configuration first (--no-baseline leaves it out). The configuration
flags change the recorded configuration; one given several times makes that many configurations (the
first with its first value, ...), one given once applies to every one of them:
  --rate <rates>            e.g. 100/1s, or several: 100/1s,2000/1m
  --strategy <name>         timer, sliding-window, token-bucket or warming-up
  --keys <rates>            a limit per key (each arrival's channel)
  --ordering <o>            fifo or per-channel
  --fairness <f>            none or weighted
  --capacity <n>            the queue's size (a positive integer)
  --overflow <o>            reject, drop-oldest or drop-newest
  --max-concurrent <n>      deliveries not yet ended, at most (a positive integer)
  --count-until <c>         start or done
  --server-answers <a>      pause (a recorded 429 pauses for its Retry-After) or ignore
  --name <name>             the column's name
  --config <file|json>      a whole configuration (a JSON object, or a file holding one); repeatable
  --same-instant <s>        one-by-one (default) or batch: arrivals at one instant as one QUEUE_BATCH
  --fleet                   each line's process its own throttler, all over one memory store
  --json                    print the reports as JSON instead of the table
import: reads an access log and writes a recording (to --out, or standard output):
  --format <f>              combined (nginx, Apache; default) or plain (a timestamp, then the key)
  --key-pattern <regex>     the key: the regex's group named key, or its first group
  --out <file>              where the recording goes
`;

interface FlagSpec {
  option: keyof ReplayConfiguration;
  read: (value: string, flag: string) => unknown;
}

function oneOf(...values: string[]) {
  return (value: string, flag: string): string => {
    if (values.includes(value)) return value;
    throw new UsageError(`${flag} must be one of ${values.join(', ')}, got ${JSON.stringify(value)}`);
  };
}

function positiveInteger(value: string, flag: string): number {
  const number = Number(value);
  if (/^\d+$/.test(value) && Number.isSafeInteger(number) && number > 0) return number;
  throw new UsageError(`${flag} must be a positive integer, got ${JSON.stringify(value)}`);
}

function rates(value: string, flag: string): string | string[] {
  const list = value.split(',').map((each) => each.trim());
  try {
    parseRates(list);
  } catch (error) {
    const why = error instanceof ThrottlerOptionError ? error.message : String(error);
    throw new UsageError(
      `${flag} must be a rate like 100/1s (or several, comma-separated), got ${JSON.stringify(value)}: ${why}`,
    );
  }
  return list.length === 1 ? (list[0] as string) : list;
}

const CONFIGURATION_FLAGS: Record<string, FlagSpec> = {
  '--rate': { option: 'rate', read: rates },
  '--strategy': { option: 'strategy', read: oneOf('timer', 'sliding-window', 'token-bucket', 'warming-up') },
  '--keys': { option: 'keys', read: (value, flag) => ({ rate: rates(value, flag) }) },
  '--ordering': { option: 'ordering', read: oneOf('fifo', 'per-channel') },
  '--fairness': { option: 'fairness', read: oneOf('none', 'weighted') },
  '--capacity': { option: 'capacity', read: positiveInteger },
  '--overflow': { option: 'overflow', read: oneOf('reject', 'drop-oldest', 'drop-newest') },
  '--max-concurrent': { option: 'maxConcurrent', read: positiveInteger },
  '--count-until': { option: 'countUntil', read: oneOf('start', 'done') },
  '--server-answers': { option: 'serverAnswers', read: oneOf('pause', 'ignore') },
  '--name': { option: 'name', read: (value) => value },
};

/** Flags that take a value, beside the configuration's. */
const VALUE_FLAGS = ['--config', '--same-instant', '--format', '--key-pattern', '--out'];
const SWITCHES = ['--json', '--no-baseline', '--fleet', '--help'];

/** A configuration as flags and --config give it: partial, laid over the recorded one. */
type Change = Partial<ReplayConfiguration> & Record<string, unknown>;

/** A command line split into its command, its one file, each flag's values in order, and its switches. */
interface Parsed {
  command: string;
  file: string;
  values: Map<string, string[]>;
  switches: Set<string>;
}

function parse(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h')
    return { command: 'help', file: '', values: new Map(), switches: new Set(['--help']) };
  if (command !== 'replay' && command !== 'import') {
    throw new UsageError(
      command === undefined
        ? 'no command: replay or import'
        : `unknown command ${JSON.stringify(command)}: replay or import`,
    );
  }
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  const files: string[] = [];
  for (let at = 0; at < rest.length; at++) {
    const arg = rest[at] as string;
    if (SWITCHES.includes(arg)) switches.add(arg);
    else if (arg in CONFIGURATION_FLAGS || VALUE_FLAGS.includes(arg)) {
      const value = rest[++at];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      values.set(arg, [...(values.get(arg) ?? []), value]);
    } else if (arg.startsWith('--')) throw new UsageError(`unknown flag ${arg}`);
    else files.push(arg);
  }
  if (switches.has('--help')) return { command, file: '', values, switches };
  if (files.length !== 1) {
    throw new UsageError(
      `${command} takes one file, got ${files.length === 0 ? 'none' : files.map((file) => JSON.stringify(file)).join(' ')}`,
    );
  }
  return { command, file: files[0] as string, values, switches };
}

export type ReadFile = (path: string) => string;

/** One `--config`: inline JSON (starting with `{`) or a file holding it; an object either way. */
function configOf(value: string, readFile: ReadFile): Change {
  let text = value;
  if (!/^\s*[[{]/.test(value)) {
    try {
      text = readFile(value);
    } catch (error) {
      throw new UsageError(`--config ${JSON.stringify(value)}: cannot read it (${(error as Error).message})`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--config ${JSON.stringify(value)} must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`--config ${JSON.stringify(value)} must be a JSON object, got ${describeValue(parsed)}`);
  }
  return parsed as Change;
}

/**
 * The configurations a replay's flags make: each `--config`, then one per value of the repeated
 * configuration flags (each flag given once applies to all); none given: the recorded one alone.
 */
function configurationsOf(parsed: Parsed, readFile: ReadFile): Change[] {
  const given = [...parsed.values].filter(([flag]) => flag in CONFIGURATION_FLAGS);
  const counts = new Set(given.map(([, values]) => values.length).filter((count) => count > 1));
  if (counts.size > 1) {
    const repeated = given
      .filter(([, values]) => values.length > 1)
      .map(([flag, values]) => `${flag} ${values.length}`);
    throw new UsageError(`flags given more than once must be given as many times each, got ${repeated.join(', ')}`);
  }
  const columns = given.length === 0 ? 0 : Math.max(1, ...counts);
  const made: Change[] = Array.from({ length: columns }, () => ({}));
  for (const [flag, values] of given) {
    const spec = CONFIGURATION_FLAGS[flag] as FlagSpec;
    const read = values.map((value) => spec.read(value, flag));
    made.forEach((configuration, at) => {
      (configuration as Record<string, unknown>)[spec.option] = read.length === 1 ? read[0] : read[at];
    });
  }
  const configs = (parsed.values.get('--config') ?? []).map((value) => configOf(value, readFile));
  return [...configs, ...made];
}

/** The recorded configuration (the header's), read from the file's first line. */
async function recordedConfiguration(file: string): Promise<Record<string, unknown>> {
  for await (const line of recordingFile(file)) {
    if (line.trim() === '') continue;
    return readHeader(line, 1).configuration;
  }
  throw new RecordingFormatError(1, undefined, 'no header line: the recording is empty');
}

/** `replay`: the reports of the recorded configuration (unless --no-baseline) and each one the flags make. */
async function replayCommand(parsed: Parsed, output: CliOutput, readFile: ReadFile): Promise<void> {
  const sameInstant = parsed.values.get('--same-instant');
  const instant =
    sameInstant === undefined
      ? undefined
      : oneOf('one-by-one', 'batch')(sameInstant.at(-1) as string, '--same-instant');
  for (const flag of ['--format', '--key-pattern', '--out']) {
    if (parsed.values.has(flag)) throw new UsageError(`${flag} is for import, not replay`);
  }
  const changes = configurationsOf(parsed, readFile);
  const recorded = await recordedConfiguration(parsed.file);
  if (parsed.switches.has('--fleet')) {
    const fleet = (clock: () => number) => createMemoryStore({ name: 'xstate-throttler-replay', clock });
    for (const change of [recorded, ...changes]) change.fleet = fleet;
  }
  const configurations: ReplayConfiguration[] = [];
  // An imported log's header holds no configuration: no baseline then.
  if (!parsed.switches.has('--no-baseline') && recorded.rate !== undefined) {
    configurations.push({ ...recorded, name: 'as recorded' } as ReplayConfiguration);
  }
  changes.forEach((change, at) => {
    configurations.push({ ...recorded, ...change, name: change.name ?? `#${at + 1}` } as ReplayConfiguration);
  });
  if (configurations.length === 0) {
    throw new UsageError(
      recorded.rate === undefined
        ? "the recording's header holds no rate (an imported log?): give a configuration (--rate, --config)"
        : '--no-baseline leaves nothing to replay: give a configuration (--rate, --config)',
    );
  }
  for (const configuration of configurations) await checkConfiguration(configuration);
  const { reports, table } = await compare(recordingFile(parsed.file), configurations, {
    sameInstant: instant as 'one-by-one' | 'batch' | undefined,
  });
  output.out(parsed.switches.has('--json') ? `${JSON.stringify(reports, null, 2)}\n` : table + processTables(reports));
}

/** With --fleet: each configuration's processes, a row each. */
function processTables(reports: readonly ReplayReport[]): string {
  let text = '';
  for (const report of reports) {
    if (report.processes === undefined) continue;
    text += `\n${report.name}, per process:\n\n| process | arrivals | delivered | wait p50 (ms) | wait p99 (ms) | wait max (ms) |\n| --- | ---: | ---: | ---: | ---: | ---: |\n`;
    for (const each of report.processes) {
      const { p50, p99, max } = each.waits;
      text += `| ${each.key ?? '-'} | ${each.arrivals} | ${each.delivered} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${max.toFixed(1)} |\n`;
    }
  }
  return text;
}

/** The flag that sets an option, for an error that names the option. */
function flagOf(option: string): string | undefined {
  const top = option.split(/[.[]/)[0];
  return Object.keys(CONFIGURATION_FLAGS).find((flag) => CONFIGURATION_FLAGS[flag]?.option === top);
}

/** A configuration the throttler refuses, refused before the recording is read, naming it and the flag. */
async function checkConfiguration(configuration: ReplayConfiguration): Promise<void> {
  const header = JSON.stringify({
    format: 'xstate-throttler-recording',
    version: 1,
    configuration: {},
    clock: '',
    startedAt: 0,
  });
  try {
    await compare([header], [configuration]);
  } catch (error) {
    if (!(error instanceof ThrottlerOptionError)) throw error;
    const flag = flagOf(error.option);
    throw new UsageError(
      `configuration ${JSON.stringify(configuration.name)}: ${error.message}${flag === undefined ? ' (--config)' : ` (${flag} or --config)`}`,
    );
  }
}

/** `import`: the access log as a recording, to --out or standard output; what it found, to standard error. */
async function importCommand(parsed: Parsed, output: CliOutput): Promise<void> {
  const format = parsed.values.get('--format')?.at(-1);
  const keyPattern = parsed.values.get('--key-pattern')?.at(-1);
  for (const flag of [...parsed.values.keys()]) {
    if (!['--format', '--key-pattern', '--out'].includes(flag))
      throw new UsageError(`${flag} is for replay, not import`);
  }
  if (format !== undefined) oneOf('combined', 'plain')(format, '--format');
  if (keyPattern !== undefined) {
    try {
      new RegExp(keyPattern);
    } catch (error) {
      throw new UsageError(
        `--key-pattern must be a regular expression, got ${JSON.stringify(keyPattern)}: ${(error as Error).message}`,
      );
    }
  }
  const report: AccessLogImport = { lines: 0, arrivals: 0, reordered: 0, blank: 0 };
  const lines = importAccessLog(
    recordingFile(parsed.file),
    {
      format: format as 'combined' | 'plain' | undefined,
      keyPattern,
    },
    report,
  );
  const out = parsed.values.get('--out')?.at(-1);
  if (out === undefined) for await (const line of lines) output.out(`${line}\n`);
  else await writeLines(out, lines);
  output.err(
    `imported ${report.arrivals} arrivals from ${report.lines} lines` +
      `${report.reordered > 0 ? `, ${report.reordered} earlier than the line before (taken at its time)` : ''}` +
      `${report.blank > 0 ? `, ${report.blank} blank` : ''}\n`,
  );
}

async function writeLines(path: string, lines: AsyncIterable<string>): Promise<void> {
  const { createWriteStream } = await import('node:fs');
  const file = createWriteStream(path);
  const settled = (event: string) =>
    new Promise<void>((resolve, reject) => {
      file.once(event, () => resolve());
      file.once('error', reject);
    });
  for await (const line of lines) if (!file.write(`${line}\n`)) await settled('drain');
  const finished = settled('finish');
  file.end();
  await finished;
}

/** Runs the command line `argv` (without node and the script); returns the exit code. */
export async function main(argv: readonly string[], output: CliOutput, readFile: ReadFile): Promise<number> {
  try {
    const parsed = parse(argv);
    if (parsed.switches.has('--help')) {
      output.out(USAGE);
      return 0;
    }
    if (parsed.command === 'replay') await replayCommand(parsed, output, readFile);
    else await importCommand(parsed, output);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`xstate-throttler: ${error.message}\nRun xstate-throttler --help for the commands and their flags.\n`);
      return 2;
    }
    const known =
      error instanceof Error && ['RecordingFormatError', 'AccessLogError', 'ThrottlerOptionError'].includes(error.name);
    const code = (error as { code?: unknown }).code;
    if (known || code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
      output.err(`xstate-throttler: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}
