import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessLogError, importAccessLog, recordingFile, replay } from '../../src/replay/index.js';

/** importAccessLog: a plain access log made a recording, one arrival a request, checked line by line. */

const fixture = join(import.meta.dirname, 'fixtures', 'nginx-access.log');

async function lines(source: AsyncIterable<string>): Promise<Record<string, unknown>[]> {
  const made: Record<string, unknown>[] = [];
  for await (const line of source) made.push(JSON.parse(line));
  return made;
}

describe('importAccessLog', () => {
  it("reads nginx's combined format: time with its zone, the key by a pattern, a 429 and a 5xx as outcomes", async () => {
    const report = { lines: 0, arrivals: 0, reordered: 0, blank: 0 };
    const [header, ...arrivals] = await lines(
      importAccessLog(recordingFile(fixture), { keyPattern: 'tenants/(?<key>[^/?]+)' }, report),
    );
    expect(header).toMatchObject({
      format: 'xstate-throttler-recording',
      version: 1,
      configuration: {},
      startedAt: Date.UTC(2026, 11, 2, 7, 0, 0),
      wallClock: '2026-12-02T07:00:00.000Z',
    });
    expect(arrivals).toEqual([
      { t: 0, channel: 'acme', outcome: 'ok' },
      { t: 0, channel: 'acme', outcome: 'ok' },
      { t: 0, channel: 'acme', outcome: 'ok' },
      // 08:00:01 +0100 is 07:00:01 UTC.
      { t: 1000, channel: 'bob', outcome: '429' },
      // Written after a later line (two workers at once): taken at the time of the line before, and counted.
      { t: 1000, outcome: 'error' },
      { t: 2000, channel: 'acme', outcome: 'ok' },
    ]);
    expect(report).toEqual({ lines: 7, arrivals: 6, reordered: 1, blank: 1 });
  });

  it('reads a plain log (ISO 8601 or epoch seconds, then the key) that replays as it is', async () => {
    const log = ['2026-12-02T07:00:00.000Z acme', '1796194800.25 bob', '1796194800500 acme', '2026-12-02T07:00:01Z'];
    const made = await lines(importAccessLog(log, { format: 'plain', configuration: { rate: '1/1s' } }));
    expect(made.slice(1)).toEqual([
      { t: 0, channel: 'acme' },
      { t: 250, channel: 'bob' },
      { t: 500, channel: 'acme' },
      { t: 1000 },
    ]);
    const report = await replay(
      importAccessLog(log, { format: 'plain', configuration: { rate: '2/1s', keys: { rate: '1/1s' } } }),
    );
    expect(report.arrivals).toBe(4);
    // acme's second call waits for its key's window: 1000 ms after its first.
    expect(report.keys.find((key) => key.key === 'acme')?.waits.max).toBe(500);
  });

  it('names the line it cannot read, and a wrong option by name', async () => {
    await expect(lines(importAccessLog(['not a log line'], {}))).rejects.toThrow(
      /access log line 1: not in the combined format .*"not a log line"/,
    );
    await expect(lines(importAccessLog(['', 'yesterday acme'], { format: 'plain' }))).rejects.toThrow(AccessLogError);
    await expect(lines(importAccessLog([], { format: 'json' as never }))).rejects.toThrow(
      "format must be 'combined' or 'plain', got \"json\"",
    );
    await expect(lines(importAccessLog([], { keyPattern: '(' }))).rejects.toThrow(
      /keyPattern must be a valid regular expression/,
    );
  });
});
