import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every file in examples/ is run as a user would run it (real timers, its own
 * process) and must exit 0 by itself: README examples that rot are worse than none.
 */
const examplesDir = join(import.meta.dirname, '..', 'examples');
const examples = readdirSync(examplesDir).filter((file) => file.endsWith('.ts'));

/**
 * What a correct run prints, for the examples whose output says something checkable. The examples run
 * on real timers, so a check never depends on how busy the machine is: a pattern, or a function that
 * reads the times printed and checks what the example promises of them (the exact schedules are
 * asserted in virtual time elsewhere).
 */
type OutputCheck = RegExp | ((stdout: string) => void);

/** The ms printed before each line that ends in `label`. */
function printedAt(stdout: string, label: string): number[] {
  return [...stdout.matchAll(new RegExp(`(\\d+) ms {2}${label}\\n`, 'g'))].map((match) => Number(match[1]));
}

const expectedOutput: Record<string, OutputCheck[]> = {
  'demo.ts': [
    /strategy "timer"/,
    /most jobs in any 1000 ms window: 3\n/,
    /job 9/,
    /Timeline of both runs \(open it in a browser\): .*xstate-throttler-timeline\.svg\n/,
  ],
  'timeline.ts': [
    /overall 5\/200ms: busiest window 5\/5\n/,
    /search 2\/200ms: busiest window [12]\/2\n/,
    /upload 2\/200ms: busiest window 2\/2\n/,
    /timeline of \d+ events written to .*\.svg\n/,
  ],
  'replay-what-if.ts': [
    /recorded 116 arrivals to .*\.ndjson\n/,
    /\| \| as configured \| per tenant \| half the rate \|\n/,
    /\| arrivals \| 116 \| 116 \| 116 \|\n/,
    // Strict windows in every configuration, whatever the recorded run's timing.
    /\| windows over \| 0 \| 0 \| 0 \|\n/,
    /\| busiest window of 10\/100ms \| - \| - \| \*\*10 \/ 10\*\* \|\n/,
  ],
  // A seeded day in virtual time: the same figures on every run (docs/replay.md's table, held to them in
  // test/examples/replay-day.test.ts).
  'replay-a-day.ts': [
    /a day of 37336 calls replayed through 3 configurations in [\d.]+ s\n/,
    /\| dropped: expired \| 502 \| \*\*374\*\* \| \*\*180\*\* \|\n/,
    /\| windows over \| 0 \| 0 \| 0 \|\n/,
    /the three timelines side by side written to .*replay-day\.svg\n/,
  ],
  'quickstart.ts': [/call 5 at/, /idle: \{ queued: 0, delivered: 5/],
  'channels.ts': [/rejected: cost must be at most 2/, /delivered: 6/],
  'keyed-limits.ts': [
    /acme call 3\n/,
    /bob call 1\n/,
    /rejected: channel must be a key \(a non-empty string of at most 1024 characters\), got ""\n/,
    // 2 per second for alice: her third call goes a second after her first, however late the first was.
    (stdout) => {
      const [first, , third] = [1, 2, 3].map((n) => printedAt(stdout, `alice call ${n}`)[0] ?? Number.NaN);
      expect((third as number) - (first as number)).toBeGreaterThanOrEqual(995);
    },
    /done: \{ queued: 0, delivered: 7, dropped: 0, rejected: 1 \}/,
  ],
  'inside-a-machine.ts': [/replies: 1,2,3,4,5,6/],
  // Scraped over HTTP and read series by series in test/otel/prometheus.test.ts.
  'otel-prometheus.ts': [
    /impatient task: ThrottlerExpiredError\n/,
    /throttler_messages_total\{[^}]*throttler_result="delivered"[^}]*\} 8\n/,
    /throttler_message_time_in_queue_count\{[^}]*\} 3\n/,
  ],
  'priorities.ts': [
    // Each line, in whatever order a busy machine lets them come (login's priority leads on a quiet one;
    // the order by priority and the drop at the deadline are asserted in virtual time).
    /\d+ ms {2}login\n/,
    /\d+ ms {2}page view\n/,
    /\d+ ms {2}dropped search \(stale after 150 ms\): expired\n/,
    /\d+ ms {2}report 1\n/,
    /done: \{ queued: 0, delivered: 6, dropped: 1, rejected: 0 \}/,
    // A busy machine can let a whole window pass before the batch after 'first' arrives, and then 'low'
    // goes at once (nothing waits ahead of it); the order by priority is asserted in virtual time.
    /promise API: first, (?=.*urgent)(?=.*low)(?=.*stale: ThrottlerExpiredError).*\n/,
  ],
  'promise-api.ts': [
    /call 99: AbortError/,
    /call 5 retried -> 200/,
    /all done at \d+ ms: 1:200 2:200 3:200 4:200 5:200 6:200/,
  ],
  'rxjs-operator.ts': [/a at \d+ ms/, /h at \d+ ms\ncomplete/],
  'server-limits.ts': [
    /sent before the first 429 came back: \d+, of which 429: \d+\n/,
    /the first 429 said: SET_RATE 5\/1s, PAUSE 1000 ms\n/,
    /sent after it: \d+, of which 429: 0\n/,
    /429s after the first: 0\n/,
  ],
  'shared-limit.ts': [
    /30 tasks from 2 processes sharing '10\/1s' through Redis\n/,
    // Host-clock start times: on a loaded machine a process can be held between deciding and starting,
    // or the link counts as slow (storeSlow), and docs/guarantees.md says a host-clock window may then hold one more.
    // The limit itself is asserted on Redis time, in test/redis/throttler-fleet.test.ts.
    /most started in any 1000 ms: \d+ \(limit 10\)\n/,
  ],
  // Real timers, real HTTP and two processes on real Redis: a busy machine delays arrivals, so the use and the
  // 429s are printed, not asserted; the provider never accepts more than its limit
  // (test/examples/mock-model-server.test.ts), and the client's numbers are asserted in virtual time
  // (test/examples/provider-accounting.test.ts).
  'llm-client.ts': [
    /provider: openai; the client charges with openaiCharge, settles nothing \(the provider gives nothing back\)\n/,
    /2 processes, 100 requests answered; the tokens limit: 4000 per 2000 ms\n/,
    /tokens counted per window: most \d+ \(\d+% of the limit\), mean \d+ \(\d+%\)\n/,
    /429s: \d+ \(server: .*\)\n/,
    /timeline of both processes \(marks: charged tokens\) written to .*\.svg\n/,
  ],
  // Real timers: the waits themselves depend on how busy the machine is (a loaded one idles longer between
  // acquires, so later waits shrink). Their exact values are asserted in virtual time in
  // test/adapters/guava-schedule.test.ts; here, that the example runs and prints eight waits for each.
  'rate-limiter.ts': [/token-bucket: waits (\d+, ){7}\d+ ms\n/, /warming-up: waits (\d+, ){7}\d+ ms\n/],
};

function runExample(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(examplesDir, file)],
      // A hang guard, not a measure: twelve tsx processes at once on a busy two-core machine took over 60 s.
      { timeout: 240_000, env: { ...process.env, NODE_NO_WARNINGS: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('examples', () => {
  it('has examples to run', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  // All at once: each spends most of its time waiting on real timers.
  const runs = new Map(examples.map((file) => [file, runExample(file)]));

  it.each(examples)(
    '%s runs to completion and exits 0',
    async (file) => {
      const { code, stdout, stderr } = await (runs.get(file) as ReturnType<typeof runExample>);
      expect(stderr, `${file} wrote to stderr`).not.toMatch(/Error|error:/);
      expect(code, `${file} exited with ${code}\n${stderr}`).toBe(0);
      expect(stdout.trim().length).toBeGreaterThan(0);
      for (const check of expectedOutput[file] ?? []) {
        if (check instanceof RegExp) expect(stdout).toMatch(check);
        else check(stdout);
      }
    },
    300_000,
  );
});
