import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/replay/cli.js';

/**
 * The command line (`npx xstate-throttler ...`): `main` in-process for every flag and refusal, and the bin
 * spawned once, as a user runs it (package.json's bin is its build: dist/esm/replay/bin.js).
 */

const repo = join(import.meta.dirname, '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'nginx-access.log');
let dir: string;
let recording: string;

/** A noisy tenant's bursts of 10 beside a quiet one, recorded at 10/100ms with a key limit of 10/100ms. */
function noisyRecording(): string {
  const header = {
    format: 'xstate-throttler-recording',
    version: 1,
    configuration: { rate: '10/100ms', strategy: 'sliding-window', keys: { rate: '10/100ms' } },
    clock: 'performance.now',
    startedAt: 0,
  };
  const lines = [JSON.stringify(header)];
  for (let t = 0; t < 500; t += 100) {
    for (let n = 0; n < 10; n++) lines.push(JSON.stringify({ t, channel: 'noisy', maxWait: 150 }));
    lines.push(JSON.stringify({ t: t + 5, channel: 'quiet' }));
  }
  return `${lines.join('\n')}\n`;
}

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (text) => (out += text), err: (text) => (err += text) }, (path) =>
    readFileSync(path, 'utf8'),
  );
  return { code, out, err };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'xstate-throttler-cli-'));
  recording = join(dir, 'traffic.ndjson');
  writeFileSync(recording, noisyRecording());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('xstate-throttler replay', () => {
  it('replays as recorded beside each configuration the flags make, a flag given twice making two', async () => {
    const { code, out, err } = await run(
      'replay',
      recording,
      '--keys',
      '4/100ms',
      '--keys',
      '10/100ms',
      '--rate',
      '5/100ms',
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const rows = out.trim().split('\n');
    expect(rows[0]).toBe('| | as recorded | #1 | #2 |');
    expect(rows).toContain('| arrivals | 55 | 55 | 55 |');
    expect(out).toMatch(/\| busiest window of 5\/100ms \| - \| \*\*5 \/ 5\*\* \| \*\*5 \/ 5\*\* \|/);
    // Held to 4 of the 5 per window, the noisy tenant loses more to its maxWait than with 10.
    const expired = rows
      .find((row) => row.startsWith('| dropped: expired'))
      ?.split('|')
      .map((cell) => cell.replaceAll('*', '').trim());
    expect(Number(expired?.[3])).toBeGreaterThan(Number(expired?.[4]));
  });

  it('takes whole configurations (--config, inline or a file), --no-baseline, --json and --same-instant batch', async () => {
    const file = join(dir, 'half.json');
    writeFileSync(file, JSON.stringify({ name: 'half', rate: '5/100ms' }));
    const { code, out } = await run(
      'replay',
      recording,
      '--config',
      file,
      '--config',
      '{"name":"per tenant","keys":{"rate":"3/100ms"},"ordering":"per-channel"}',
      '--no-baseline',
      '--json',
      '--same-instant',
      'batch',
    );
    expect(code).toBe(0);
    const reports = JSON.parse(out);
    expect(reports.map((report: { name: string }) => report.name)).toEqual(['half', 'per tenant']);
    expect(reports[0].configuration).toMatchObject({ rate: '5/100ms', strategy: 'sliding-window' });
    const quiet = reports[1].keys.find((key: { key: string }) => key.key === 'quiet');
    expect(quiet.waits.max).toBe(0);
    for (const report of reports) expect(report.windowsOver).toBe(0);
  });

  it.each([
    [['replay'], /replay takes one file, got none/],
    [['play', 'x'], /unknown command "play": replay or import/],
    [['replay', 'a', '--rates', '1/1s'], /unknown flag --rates/],
    [['replay', 'a', '--rate'], /--rate needs a value/],
    [
      ['replay', 'a', '--rate', '0/1s'],
      /--rate must be a rate like 100\/1s .*got "0\/1s": rate\[0\]\.limit must be a positive integer/,
    ],
    [
      ['replay', 'a', '--strategy', 'leaky'],
      /--strategy must be one of timer, sliding-window, token-bucket, warming-up, got "leaky"/,
    ],
    [['replay', 'a', '--capacity', '2.5'], /--capacity must be a positive integer, got "2.5"/],
    [['replay', 'a', '--max-concurrent', '0'], /--max-concurrent must be a positive integer, got "0"/],
    [['replay', 'a', '--same-instant', 'all'], /--same-instant must be one of one-by-one, batch, got "all"/],
    [
      ['replay', 'a', '--rate', '1/1s', '--rate', '2/1s', '--keys', '1/1s', '--keys', '2/1s', '--keys', '3/1s'],
      /flags given more than once must be given as many times each, got --rate 2, --keys 3/,
    ],
    [['replay', 'a', '--config', '[1]'], /--config "\[1\]" must be a JSON object/],
    [['replay', 'a', '--format', 'plain'], /--format is for import, not replay/],
    [['import', 'a', '--rate', '1/1s'], /--rate is for replay, not import/],
    [['import', 'a', '--key-pattern', '('], /--key-pattern must be a regular expression, got "\("/],
  ])('refuses %j with exit code 2, naming the flag and the value', async (argv, message) => {
    const { code, out, err } = await run(...(argv as string[]));
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(message);
    expect(err).toContain('Run xstate-throttler --help');
  });

  it('refuses a configuration the throttler refuses before reading the recording, naming it and the flag', async () => {
    const { code, err } = await run('replay', recording, '--config', '{"name":"bad","overflow":"drop-all"}');
    expect(code).toBe(2);
    expect(err).toMatch(/configuration "bad": overflow must be "reject", .*got "drop-all" \(--overflow or --config\)/);
  });

  it('says what is wrong with a recording, exit code 1', async () => {
    const broken = join(dir, 'broken.ndjson');
    writeFileSync(broken, `${noisyRecording()}{"t":500,"priority":12}\n`);
    expect(await run('replay', broken, '--rate', '1/1s')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/recording line 57, field priority: must be an integer from 0 to 9, got 12/),
    });
    expect(await run('replay', join(dir, 'none.ndjson'))).toMatchObject({
      code: 1,
      err: expect.stringMatching(/ENOENT/),
    });
  });
});

describe('xstate-throttler replay --fleet', () => {
  it("replays each line's process as its own throttler over one memory store, with a table per configuration of each process's waits", async () => {
    const file = join(dir, 'fleet.ndjson');
    const header = {
      format: 'xstate-throttler-recording',
      version: 1,
      configuration: { rate: '2/100ms' },
      clock: 'Date.now',
      startedAt: 0,
    };
    const arrivals = Array.from({ length: 8 }, (_, n) => JSON.stringify({ t: n * 5, process: `web-${n % 2}` }));
    writeFileSync(file, [JSON.stringify(header), ...arrivals].join('\n'));
    const { code, out, err } = await run('replay', file, '--fleet', '--rate', '4/100ms');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('| delivered | 8 | 8 |');
    expect(out).toContain('as recorded, per process:');
    expect(out).toMatch(/#1, per process:\n\n\| process \| arrivals \| delivered \|.*\n.*\n\| web-0 \| 4 \| 4 \|/);
    // 2 per 100 ms for the fleet: its eighth arrival (at 35 ms) goes in the fourth window, at 300 ms at the earliest.
    expect(out).toMatch(/\| wait max \(ms\) \| (2[6-9]\d|3\d\d)(\.\d)? \|/);
  });
});

describe('xstate-throttler import', () => {
  it('writes the recording to --out and says what it read; the recording then replays', async () => {
    const out = join(dir, 'imported.ndjson');
    const imported = await run('import', fixture, '--key-pattern', 'tenants/(?<key>[^/?]+)', '--out', out);
    expect(imported).toEqual({
      code: 0,
      out: '',
      err: 'imported 6 arrivals from 7 lines, 1 earlier than the line before (taken at its time), 1 blank\n',
    });
    // An imported log's header holds no rate: the replay needs one, and keys for its channels.
    expect((await run('replay', out)).err).toMatch(/holds no rate \(an imported log\?\): give a configuration/);
    const replayed = await run('replay', out, '--rate', '2/1s', '--keys', '1/1s');
    expect(replayed.code).toBe(0);
    expect(replayed.out).toContain('| arrivals | 6 |');
    expect(replayed.out).toContain('| busiest window of 2/1s | 2 / 2 |');
  });
});

describe('the bin', () => {
  it("is package.json's bin, built from src/replay/bin.ts, and runs as a user runs it", async () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ 'xstate-throttler': './dist/esm/replay/bin.js' });
    expect(readFileSync(join(repo, 'src/replay/bin.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const bin = join(repo, 'src/replay/bin.ts');
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', bin, 'replay', recording, '--rate', '5/100ms'],
      { cwd: repo, timeout: 60_000 },
    );
    expect(stderr).toBe('');
    expect(stdout.split('\n')[0]).toBe('| | as recorded | #1 |');
    const failed = await promisify(execFile)(process.execPath, ['--import', 'tsx', bin, 'replay'], { cwd: repo }).catch(
      (error) => error,
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^xstate-throttler: replay takes one file, got none/);
  }, 60_000);
});
