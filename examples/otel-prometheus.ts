// A throttler's OpenTelemetry metrics (xstate-throttler/otel), served to Prometheus at /metrics by
// @opentelemetry/exporter-prometheus. PORT picks the port (default: any free one); LINGER_MS keeps
// serving that long for a scraper (default: the example scrapes itself once, prints, and ends).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { createThrottler } from '../src/index.js';
import { instrumentThrottler } from '../src/otel/index.js';

// The exporter is the provider's reader; its request handler serves the scrape on our own server.
const exporter = new PrometheusExporter({ preventServerStart: true });
const provider = new MeterProvider({ readers: [exporter] });
const meter = provider.getMeter('otel-prometheus-example');

const throttler = createThrottler({ rate: '5/1s', strategy: 'sliding-window' });
const metrics = instrumentThrottler(throttler, { meter, name: 'api', attributes: { 'peer.service': 'example-api' } });

const server = createServer((request, response) => {
  if (request.url === '/metrics') exporter.getMetricsRequestHandler(request, response);
  else response.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;

// 8 tasks at 5 per second: 5 start at once, 3 wait about a second; one more gives up after 100 ms.
const tasks = Array.from({ length: 8 }, (_, n) => throttler.schedule(() => n));
const impatient = throttler.schedule(() => 'late', { maxWait: 100 }).catch((error: Error) => error.name);
await Promise.all(tasks);
console.log(`impatient task: ${await impatient}`);
console.log(`metrics at ${url}`);

const scraped = await (await fetch(url)).text();
// Every series but the histogram's buckets, for a look.
for (const line of scraped.split('\n'))
  if (line.startsWith('throttler_') && !line.includes('_bucket{')) console.log(line);

async function end(): Promise<void> {
  metrics.stop();
  throttler.stop();
  server.close();
  await provider.shutdown();
}
const linger = setTimeout(end, Number(process.env.LINGER_MS ?? 0));
process.once('SIGTERM', () => {
  clearTimeout(linger);
  void end();
});
