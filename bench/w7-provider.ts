/**
 * W7's mock provider in a process of its own (child_process.fork), as a real provider runs on another host:
 * in the client's process, on a busy machine, the server's parsing and answering of a window's worth of
 * requests would be billed to the client's round trips, and so to the transit it measures. One child serves
 * every run of W7 in turn, a fresh server each, its code warm after the first.
 *
 * Messages: `start` (the provider's limits and seeds) answered `started` with the server's URL; `close`
 * answered `closed` with what the server accepted and refused; `exit`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '../examples/llm/mock-model-server.js';
import type { AcceptedRequest, ModelLimitsOptions, Quota } from '../examples/llm/model-limits.js';
import { seeded } from '../examples/llm/network.js';

export interface ProviderStart {
  type: 'start';
  /** The provider's limits, without `random` (the child draws from `seed`). */
  limits: Omit<ModelLimitsOptions, 'random'>;
  /** The server's draws from seed + 1, the network's from seed + 2. */
  seed: number;
  uplinkMs: number | readonly [number, number];
  downlinkMs: number | readonly [number, number];
}

export interface ProviderClosed {
  type: 'closed';
  accepted: AcceptedRequest[];
  refused: Partial<Record<Quota, number>>;
}

/** The parent's handle on the child. */
export interface ProviderProcess {
  start(message: Omit<ProviderStart, 'type'>): Promise<string>;
  close(): Promise<ProviderClosed>;
  exit(): Promise<void>;
}

const CHILD = fileURLToPath(import.meta.url);

/** The next message of `type` from `child`; rejects if the child exits first. */
function next<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string }) => {
      if (message?.type !== type) return;
      child.off('exit', onExit);
      child.off('message', onMessage);
      resolve(message as T);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`the W7 provider process exited (${code}) before '${type}'`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export function forkProvider(): ProviderProcess {
  const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    async start(message) {
      const started = next<{ url: string }>(child, 'started');
      child.send({ type: 'start', ...message });
      return (await started).url;
    },
    close() {
      const closed = next<ProviderClosed>(child, 'closed');
      child.send({ type: 'close' });
      return closed;
    },
    async exit() {
      if (child.exitCode !== null || !child.connected) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'exit' });
      await exited;
    },
  };
}

/** The child: one server at a time. */
function serve(): void {
  let server: MockModelServer | undefined;
  process.on('message', async (message: ProviderStart | { type: 'close' | 'exit' }) => {
    if (message.type === 'start') {
      server = await startMockModelServer({
        ...message.limits,
        random: seeded(message.seed + 1),
        network: { uplinkMs: message.uplinkMs, downlinkMs: message.downlinkMs, random: seeded(message.seed + 2) },
      });
      process.send?.({ type: 'started', url: server.url });
    } else if (message.type === 'close' && server !== undefined) {
      await server.close();
      const { accepted, refused } = server.limits;
      process.send?.({ type: 'closed', accepted, refused } satisfies ProviderClosed);
      server = undefined;
    } else if (message.type === 'exit') {
      process.disconnect();
    }
  });
}

if (process.argv[1] === CHILD && process.send !== undefined) serve();
