/**
 * The scenario in Node, Bun or Deno: `<runtime> main.mjs <redis url> <limiter name>`, from a project
 * whose node_modules holds the built package, xstate and ioredis. Prints `RESULT <json>`.
 */
import { Redis } from 'ioredis';
import { scenario } from './scenario.mjs';

const [url, name] = process.argv.slice(2);
const redis = new Redis(url, { maxRetriesPerRequest: 1 });
try {
  console.log(`RESULT ${JSON.stringify(await scenario(redis, name))}`);
} finally {
  redis.disconnect();
}
