import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

/**
 * Throwaway redis-server processes for fault and Cluster tests: each in its own temp dir, with no
 * persistence, on a loopback port found free, started as our child (no daemonize) and ended by its
 * pid. Never the shared Redis other tests use.
 */
export interface RedisServer {
  readonly port: number;
  readonly dir: string;
  /** Ends the server (SIGKILL: as abrupt as a crash) and waits for it to exit. */
  stop(): Promise<void>;
}

const run = promisify(execFile);

/**
 * A free loopback port whose Cluster bus port (+10000) is free too. `REDIS_TEST_PORTS` (`low-high`)
 * keeps the choice in a range: engineers sharing one machine each take their own.
 */
export async function freePort(): Promise<number> {
  const [low, high] = portRange(process.env.REDIS_TEST_PORTS);
  for (;;) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if ((await isFree(port)) && (await isFree(port + 10000))) return port;
  }
}

function portRange(text: string | undefined): [number, number] {
  const match = /^(\d+)-(\d+)$/.exec(text ?? '');
  if (match === null) {
    if (text !== undefined) throw new Error(`REDIS_TEST_PORTS must be low-high, not ${text}`);
    return [20000, 44999];
  }
  return [Number(match[1]), Number(match[2])];
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function startRedisServer(port: number, dir: string, extra: string[] = []): Promise<RedisServer> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    try {
      const { stdout } = await run('redis-cli', ['-p', String(port), 'ping']);
      if (stdout.trim() === 'PONG') break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > giveUpAt) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    dir,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A temp dir for servers, and a way to remove it. */
export function serverDir(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `xt-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Three masters on loopback, joined into a Cluster with no replicas. */
export async function startCluster(dir: string): Promise<{ ports: number[]; stop(): Promise<void> }> {
  const ports: number[] = [];
  const servers: RedisServer[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      let port = await freePort();
      while (ports.includes(port)) port = await freePort();
      ports.push(port);
      servers.push(
        await startRedisServer(port, dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
        ]),
      );
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    // The cluster is usable once every node agrees that all slots are served.
    const giveUpAt = Date.now() + 10_000;
    for (const port of ports) {
      for (;;) {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
        if (stdout.includes('cluster_state:ok')) break;
        if (Date.now() > giveUpAt) throw new Error(`cluster node ${port} never reached cluster_state:ok`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    for (const server of servers) await server.stop();
    throw error;
  }
  return {
    ports,
    stop: async () => {
      for (const server of servers) await server.stop();
    },
  };
}

/**
 * A throwaway server for the fault tests of one file, with the two clients they use on it: `redis`,
 * the store's (ioredis' defaults, reconnecting every 50 ms so that an outage stays short on a busy
 * machine), and `admin`, to break things with (one retry). `close()` ends all of it.
 */
export interface ThrowawayRedis {
  readonly port: number;
  readonly redis: Redis;
  readonly admin: Redis;
  /** Kills the server (as abruptly as a crash). */
  stopServer(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence), as after a crash. */
  restartServer(): Promise<void>;
  close(): Promise<void>;
}

export async function startThrowawayRedis(label: string): Promise<ThrowawayRedis> {
  const dir = serverDir(label);
  const port = await freePort();
  let server = await startRedisServer(port, dir.dir);
  const redis = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 50 });
  redis.on('error', () => {});
  const admin = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  admin.on('error', () => {});
  return {
    port,
    redis,
    admin,
    stopServer: () => server.stop(),
    async restartServer() {
      server = await startRedisServer(port, dir.dir);
    },
    async close() {
      redis.disconnect();
      admin.disconnect();
      await server.stop();
      dir.remove();
    },
  };
}
