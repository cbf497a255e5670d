/**
 * The network between a client and the mock provider: each request is held a random uplink time before
 * the provider counts it, and each answer a random downlink time before the client has it, drawn from a
 * seeded generator so that a run replays. Shared by the HTTP server and the virtual-time network.
 */

import { seeded } from '../support/seeded-random.js';

export { seeded };

/** Ms, fixed (`30`) or drawn uniformly from `[min, max]`. */
export type Delay = number | readonly [number, number];

export interface NetworkOptions {
  /** Before the provider counts a request. Default `[20, 150]`. */
  uplinkMs?: Delay;
  /** Before the client has the answer. Default `[5, 40]`. */
  downlinkMs?: Delay;
  /** The draws' generator, from 0 (inclusive) to 1 (exclusive). Default: seeded with 1. */
  random?: () => number;
}

/** The jitter issue 36 measured against: 20-150 ms up, 5-40 ms down. */
export const NETWORK_JITTER = { uplinkMs: [20, 150], downlinkMs: [5, 40] } as const;

/** No delay either way. */
export const NO_NETWORK_DELAY = { uplinkMs: 0, downlinkMs: 0 } as const;

/** The two delays' draws. */
export interface Network {
  uplink(): number;
  downlink(): number;
}

export function network(options: NetworkOptions = {}): Network {
  const random = options.random ?? seeded(1);
  const draw = (delay: Delay) => (typeof delay === 'number' ? delay : delay[0] + (delay[1] - delay[0]) * random());
  const uplink = options.uplinkMs ?? NETWORK_JITTER.uplinkMs;
  const downlink = options.downlinkMs ?? NETWORK_JITTER.downlinkMs;
  return { uplink: () => draw(uplink), downlink: () => draw(downlink) };
}

export const sleep = (ms: number): Promise<void> =>
  ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
