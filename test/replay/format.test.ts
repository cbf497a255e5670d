import { describe, expect, it } from 'vitest';
import { arrivalLine } from '../../src/replay/format.js';
import {
  type RecordedArrival,
  RecordingFormatError,
  type RecordingItem,
  type RecordingSource,
  readRecording,
} from '../../src/replay/index.js';

/** Every field of a recording is checked as it is read, and a wrong one named with its line. */

const HEADER = JSON.stringify({
  format: 'xstate-throttler-recording',
  version: 1,
  configuration: { rate: '10/1s' },
  clock: 'performance.now',
  startedAt: 1234.5,
});

async function read(text: RecordingSource): Promise<RecordingItem[]> {
  const items: RecordingItem[] = [];
  for await (const item of readRecording(text)) items.push(item);
  return items;
}

async function refusal(text: string): Promise<RecordingFormatError> {
  const error = await read(text).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RecordingFormatError);
  return error as RecordingFormatError;
}

describe('reading a recording', () => {
  it('reads the header, then each arrival with its line number, skipping blank lines (CRLF too)', async () => {
    const arrival = { t: 5, cost: { requests: 1, tokens: 900 }, channel: 'tenant-a', priority: 7, maxWait: 2000 };
    const done = { t: 6.5, sent: 8, ran: 120, outcome: '429', retryAfter: 1000 };
    const items = await read(`${HEADER}\r\n\n${JSON.stringify(arrival)}\n${JSON.stringify(done)}\n`);
    expect(items).toEqual([
      { kind: 'header', header: JSON.parse(HEADER) },
      { kind: 'arrival', arrival, line: 3 },
      { kind: 'arrival', arrival: done, line: 4 },
    ]);
  });

  it('reads lines one by one from any (async) iterable, as readline hands them', async () => {
    async function* lines() {
      yield HEADER;
      yield '{"t":1}';
      yield '{"t":2,"dropped":"expired"}';
    }
    const items = await read(lines());
    expect(items.map((item) => item.kind)).toEqual(['header', 'arrival', 'arrival']);
  });

  it.each([
    ['', 1, undefined, 'no header line'],
    ['{"t":1}', 1, 'format', 'the header line'],
    [`${HEADER.replace('"version":1', '"version":2')}`, 1, 'version', 'must be 1'],
    [`${HEADER.replace('"startedAt":1234.5', '"startedAt":"soon"')}`, 1, 'startedAt', 'finite number'],
    [`${HEADER}\n{"t":1}\nnot json`, 3, undefined, 'not JSON'],
    [`${HEADER}\n[1,2]`, 2, undefined, 'JSON object'],
    [`${HEADER}\n{"cost":1}`, 2, 't', 'is required'],
    [`${HEADER}\n{"t":-1}`, 2, 't', '>= 0'],
    [`${HEADER}\n{"t":5}\n{"t":4}`, 3, 't', 'in order'],
    [`${HEADER}\n{"t":1,"colour":"red"}`, 2, 'colour', 'not a field'],
    [`${HEADER}\n{"t":1,"cost":0}`, 2, 'cost', 'positive integer'],
    [`${HEADER}\n{"t":1,"cost":{"tokens":-3}}`, 2, 'cost.tokens', 'integer >= 0'],
    [`${HEADER}\n{"t":1,"channel":""}`, 2, 'channel', 'non-empty string'],
    [`${HEADER}\n{"t":1,"priority":12}`, 2, 'priority', '0 to 9'],
    [`${HEADER}\n{"t":1,"deadline":5,"maxWait":3}`, 2, 'maxWait', 'only one of deadline and maxWait'],
    [`${HEADER}\n{"t":1,"maxWait":"2s"}`, 2, 'maxWait', 'finite number'],
    [`${HEADER}\n{"t":3,"sent":2}`, 2, 'sent', 'not be before t'],
    [`${HEADER}\n{"t":3,"sent":4,"dropped":"expired"}`, 2, 'dropped', 'only one of sent, dropped and rejected'],
    [`${HEADER}\n{"t":3,"ran":-1}`, 2, 'ran', '>= 0'],
    [`${HEADER}\n{"t":3,"outcome":"timeout"}`, 2, 'outcome', "'ok', 'error', '429'"],
    [`${HEADER}\n{"t":3,"outcome":"ok","retryAfter":100}`, 2, 'retryAfter', "only for outcome '429'"],
  ])('refuses %j at line %i, naming field %s', async (text, line, field, problem) => {
    const error = await refusal(text);
    expect({ line: error.line, field: error.field }).toEqual({ line, field });
    expect(error.message).toContain(problem);
    expect(error.message).toContain(`recording line ${line}`);
  });
});

describe('writing an arrival line', () => {
  it('writes what JSON.stringify writes, times to the microsecond from their integer count, and reads back the same', () => {
    const arrivals: RecordedArrival[] = [
      { t: 0 },
      { t: 1234.567, cost: { requests: 1, tokens: 1200 }, channel: 'a"b\n', priority: 9, maxWait: 0.5 },
      { t: 0.001, deadline: -12.25, sent: 1e-3, ran: 1999.999, outcome: '429', retryAfter: 1000 },
      { t: 12, dropped: 'expired' },
      { t: 1e21, rejected: 'overflow', ran: 0.1 + 0.2 },
    ];
    for (const arrival of arrivals) {
      const line = arrivalLine(arrival);
      expect(JSON.parse(line)).toEqual(arrival);
      expect(line).toBe(JSON.stringify(arrival));
    }
    // 0.1 + 0.2 is not a whole count of microseconds: written as JSON writes it.
    expect(arrivalLine({ t: 0.1 + 0.2 })).toBe('{"t":0.30000000000000004}');
  });

  it('writes every count of microseconds, each fraction from .001 to .999, as JSON.stringify does', () => {
    for (const whole of [0, 7, 123_456, -3, 9_007_199_254]) {
      for (let micros = 0; micros < 1000; micros++) {
        const t = Math.round((whole + (whole < 0 ? -micros : micros) / 1000) * 1000) / 1000;
        expect(arrivalLine({ t, sent: t, ran: t })).toBe(JSON.stringify({ t, sent: t, ran: t }));
      }
    }
  });
});
