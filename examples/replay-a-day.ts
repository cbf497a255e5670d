// What if, for a whole day: a day of an API's traffic (diurnal load, bursts, a noisy tenant's nightly export
// and bulk syncs), made from a seed, replayed in virtual time through three configurations: one limit for
// everyone, a limit per tenant, a fair share of the one limit. Prints the comparison and each tenant's waits,
// and draws the three timelines side by side. The day is in examples/replay-day/day.ts.
//
// `npx tsx examples/replay-a-day.ts --docs` writes the tables into docs/replay.md and the picture to
// docs/replay-day.svg (test/examples/replay-day.test.ts checks that they are this example's output).
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docsTables, replayDay } from './replay-day/day.js';

const started = performance.now();
const day = await replayDay();
const took = ((performance.now() - started) / 1000).toFixed(1);
console.log(`a day of ${day.arrivals} calls replayed through ${day.reports.length} configurations in ${took} s`);
console.log(docsTables(day));

const docs = process.argv.includes('--docs');
const picture = docs ? join(import.meta.dirname, '..', 'docs', 'replay-day.svg') : join(tmpdir(), 'replay-day.svg');
writeFileSync(picture, day.svg);
console.log(`the three timelines side by side written to ${picture}`);
if (docs) {
  const page = join(import.meta.dirname, '..', 'docs', 'replay.md');
  const [before, rest] = readFileSync(page, 'utf8').split('<!-- replay-a-day: begin -->\n');
  const [, after] = (rest ?? '').split('<!-- replay-a-day: end -->');
  if (before === undefined || after === undefined) throw new Error(`${page} has no replay-a-day markers`);
  writeFileSync(page, `${before}<!-- replay-a-day: begin -->\n${docsTables(day)}<!-- replay-a-day: end -->${after}`);
  console.log(`tables written to ${page}`);
}
