// Guava-style rate limiting with acquire(): a token bucket and a warming-up limiter at 10 per second.
import { createThrottler } from '../src/index.js';

async function show(name: string, options: Parameters<typeof createThrottler>[0], idleMs: number): Promise<void> {
  const limiter = createThrottler(options);
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const waits: number[] = [];
  for (let n = 0; n < 8; n++) waits.push(Math.round(await limiter.acquire()));
  console.log(`${name}: waits ${waits.join(', ')} ms`);
  limiter.stop();
}

// After idling 300 ms the bucket holds 3 stored permits (maxBurst 3): 4 go at once, then one per 100 ms.
await show('token-bucket', { rate: '10/1s', strategy: 'token-bucket', maxBurst: 3 }, 300);
// A cold limiter starts 3 times slower and reaches 100 ms spacing after the 400 ms warm-up.
await show('warming-up', { rate: '10/1s', strategy: 'warming-up', warmup: '400ms' }, 0);
