// The promise API: throttle async functions without an actor system.
// A fake API allows 3 calls per 500 ms; we schedule 7, abort one, and back off on a 429.
import { createThrottler } from '../src/index.js';

const started = performance.now();
const elapsed = () => `${Math.round(performance.now() - started)} ms`;

const throttler = createThrottler({ rate: '3/500ms', strategy: 'sliding-window' });

/** Stands in for fetch(): answers 429 with Retry-After the first time call 5 is made. */
let saidTooMany = false;
async function callApi(n: number): Promise<{ status: number; n: number }> {
  if (n === 5 && !saidTooMany) {
    saidTooMany = true;
    return { status: 429, n };
  }
  return { status: 200, n };
}

const fetchUser = throttler.wrap(async (n: number) => {
  const response = await callApi(n);
  console.log(`call ${n} -> ${response.status} at ${elapsed()}`);
  if (response.status === 429) {
    throttler.pause(300); // Retry-After: nothing starts for 300 ms
    return throttler
      .schedule(() => callApi(n))
      .then((retry) => {
        console.log(`call ${n} retried -> ${retry.status} at ${elapsed()}`);
        return retry;
      });
  }
  return response;
});

const aborted = new AbortController();
const calls = [1, 2, 3, 4, 5, 6].map((n) => fetchUser(n));
const cancelled = throttler.schedule(() => callApi(99), { signal: aborted.signal });
aborted.abort();

try {
  await cancelled;
} catch (error) {
  console.log(`call 99: ${(error as Error).name}`);
}
const results = await Promise.all(calls);
console.log(`all done at ${elapsed()}: ${results.map((r) => `${r.n}:${r.status}`).join(' ')}`);
console.log('tryAcquire now:', throttler.tryAcquire() === 0 ? 'took a permit' : 'must wait');
console.log('counts:', throttler.counts);
throttler.stop();
