/**
 * The scenario in workerd (bundled with the built package, xstate and ioredis by the test; config in
 * runtimes.test.ts). `GET /worker?redis=<url>&name=<limiter>` runs the whole scenario in the Worker;
 * `/object?...` runs it in a Durable Object; `/held` sends 30 requests to a Durable Object that holds one
 * throttler across them (made in its constructor), each request scheduling one task, and returns the
 * start times of that throttler. Each answers `RESULT <json>`, or the error's stack with status 500.
 */
import { DurableObject } from 'cloudflare:workers';
import { Redis } from 'ioredis';
import { createThrottler } from 'xstate-throttler';
import { RATE, runtimeName, scenario, TASKS } from './scenario.mjs';

async function answer(work) {
  try {
    return new Response(`RESULT ${JSON.stringify(await work())}`);
  } catch (error) {
    return new Response(String(error?.stack ?? error), { status: 500 });
  }
}

async function scenarioAt(url) {
  const redis = new Redis(url.searchParams.get('redis'), { maxRetriesPerRequest: 1 });
  try {
    return await scenario(redis, url.searchParams.get('name'));
  } finally {
    redis.disconnect();
  }
}

/** A Durable Object: one throttler for its life, and the scenario's three parts on request. */
export class Throttled extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.throttler = createThrottler({ rate: RATE, strategy: 'sliding-window' });
    this.starts = [];
    this.runs = [];
    this.throttler.actor.on('delivered', (event) => this.starts.push(event.at));
  }

  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/scenario') return answer(() => scenarioAt(url));
    if (url.pathname === '/task') {
      const n = Number(url.searchParams.get('n'));
      return answer(() =>
        this.throttler.schedule(() => {
          this.runs[n] = (this.runs[n] ?? 0) + 1;
          return n;
        }),
      );
    }
    if (url.pathname === '/starts') return answer(() => ({ starts: this.starts, runs: this.runs }));
    return new Response('not found', { status: 404 });
  }
}

/** One task per request to the Durable Object `held`, all at once; then its throttler's start times. */
async function held(env) {
  const stub = env.THROTTLED.get(env.THROTTLED.idFromName('held'));
  const values = await Promise.all(
    Array.from({ length: TASKS }, async (_, n) => {
      const text = await (await stub.fetch(`http://object/task?n=${n}`)).text();
      if (!text.startsWith('RESULT ')) throw new Error(`task ${n}: ${text}`);
      return JSON.parse(text.slice('RESULT '.length));
    }),
  );
  const text = await (await stub.fetch('http://object/starts')).text();
  if (!text.startsWith('RESULT ')) throw new Error(`starts: ${text}`);
  return { runtime: runtimeName(), values, ...JSON.parse(text.slice('RESULT '.length)) };
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/worker') return answer(() => scenarioAt(url));
    if (url.pathname === '/object') {
      const stub = env.THROTTLED.get(env.THROTTLED.idFromName(url.searchParams.get('name')));
      return stub.fetch(`http://object/scenario${url.search}`);
    }
    if (url.pathname === '/held') return answer(() => held(env));
    return new Response('not found', { status: 404 });
  },
};
