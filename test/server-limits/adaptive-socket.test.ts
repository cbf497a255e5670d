/**
 * `adaptive` over a real socket: a node:http server on 127.0.0.1 keeping a hidden sliding window of L = 30
 * a second counted at arrival, each request held 20-150 ms before it is counted (the uplink's jitter) and
 * answered 200 or a bare 429. Real time on a shared machine: generous bounds only, the exact figures are
 * in virtual time (test/server-limits/adaptive-jitter.test.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { serverLimits } from '../../src/server-limits/index.js';

const LIMIT = 30;
const WINDOW = 1_000;
let server: Server;
let url = '';
const accepted: number[] = [];
const refused: number[] = [];

beforeAll(async () => {
  server = createServer((_request, response) => {
    setTimeout(
      () => {
        const now = performance.now();
        const held = accepted.filter((at) => at > now - WINDOW).length;
        if (held >= LIMIT) refused.push(now);
        else accepted.push(now);
        response.writeHead(held >= LIMIT ? 429 : 200, { connection: 'keep-alive' });
        response.end();
      },
      20 + 130 * Math.random(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('adaptive over a real socket, uplink 20-150 ms, hidden L = 30/s', () => {
  it('finds L and holds most of it once steady (generous bounds: the 429s are not yet within 0.5% here)', async () => {
    const throttler = createThrottler({
      rate: '1000/1s',
      strategy: 'sliding-window',
      transit: 0,
      serverLimits: serverLimits((value: Response) => value, { adaptive: { min: '5/1s', max: '1000/1s' } }),
    });
    const until = performance.now() + 30_000;
    const loop = async (): Promise<void> => {
      while (performance.now() < until) {
        const response = await throttler.schedule(() => fetch(url));
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 20 }, loop));
    throttler.stop();
    // The last 15 s: steady.
    const from = until - 15_000;
    const ok = accepted.filter((at) => at >= from && at < until).length;
    const no = refused.filter((at) => at >= from && at < until).length;
    const share = ok / 15 / LIMIT;
    const context = `share ${share.toFixed(3)}, refused ${no} of ${ok + no}`;
    expect(share, context).toBeGreaterThanOrEqual(0.6);
    // Measured in two runs: 82% with no 429s, 90% with 6%: the virtual-time figures do not hold here yet.
    expect(no / (ok + no), context).toBeLessThanOrEqual(0.1);
  }, 60_000);
});
