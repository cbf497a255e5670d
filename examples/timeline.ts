// Seeing what a throttler did: record its events, measure the busiest window of every rate, and
// draw the timeline as SVG. A strict 5 per 200 ms overall, 2 per 200 ms for search, 1 upload
// (cost 2) per 200 ms; a burst of 12 messages. Real timers, about a second.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../src/index.js';
import { busiestWindows, recordTimeline } from '../src/timeline/index.js';

const rates = { rate: '5/200ms', channels: { search: '2/200ms', upload: '2/200ms' } };
const api = createActor(fromCallback(() => {})).start();
const throttler = createActor(throttlerMachine, { input: { ...rates, strategy: 'sliding-window', target: api } });
const recording = recordTimeline(throttler, { ...rates, title: 'sliding-window, 5/200ms overall' });
throttler.start();

for (let n = 1; n <= 12; n++) {
  const channel = n % 3 === 0 ? 'upload' : n % 3 === 1 ? 'search' : undefined;
  throttler.send({ type: 'QUEUE', message: { type: 'job', n }, channel, cost: channel === 'upload' ? 2 : 1 });
}
while (throttler.getSnapshot().value !== 'idle') await new Promise((resolve) => setTimeout(resolve, 20));
recording.stop();
throttler.stop();

// The same numbers the picture draws: the fullest window of each rate, against its limit.
for (const window of busiestWindows({ events: recording.events, ...rates })) {
  console.log(`${window.channel ?? 'overall'} ${window.rate}: busiest window ${window.count}/${window.limit}`);
}
const file = join(tmpdir(), 'xstate-throttler-example-timeline.svg');
writeFileSync(file, recording.svg());
console.log(`timeline of ${recording.events.length} events written to ${file}`);
