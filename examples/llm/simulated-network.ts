/**
 * The mock provider of mock-model-server.ts without sockets, for tests in virtual time: the same provider
 * logic (model-limits.ts) and the same delays (network.ts), the delays as timers, so that a run under fake
 * timers is fast and replays exactly. `call` answers as `callModel` does against the HTTP server.
 */
import { answerBody, type ModelCall } from './mock-model-server.js';
import { ModelLimits, type ModelLimitsOptions, type ModelRequest } from './model-limits.js';
import { type NetworkOptions, network, sleep } from './network.js';

export interface SimulatedProvider {
  readonly limits: ModelLimits;
  /** Sends `request` over the simulated network; resolves with the answer as the client has it. */
  call(request: ModelRequest): Promise<ModelCall>;
}

export interface SimulatedProviderOptions extends ModelLimitsOptions {
  /** The provider's clock. Default `performance.now` (faked with the timers in virtual time). */
  now?: () => number;
  network?: NetworkOptions;
}

export function simulateProvider(options: SimulatedProviderOptions): SimulatedProvider {
  const now = options.now ?? (() => performance.now());
  // The epoch is read once, as the server reads it, so that date-time resets agree with the Date field.
  const epochMs = options.epochMs ?? Date.now() - now();
  const limits = new ModelLimits({ ...options, epochMs });
  const delays = network(options.network);
  return {
    limits,
    async call(request) {
      // Serialised and read back, as over a socket: the provider never sees the caller's objects.
      const sent = JSON.parse(JSON.stringify(request)) as ModelRequest;
      await sleep(delays.uplink());
      const at = now();
      const answer = limits.answer(at, sent);
      if (answer.status === 200) await sleep(options.generationMs ?? 0);
      await sleep(delays.downlink());
      const headers = new Headers({ ...answer.headers, date: new Date(epochMs + now()).toUTCString() });
      const body = answerBody(answer) as ModelCall['body'];
      return { status: answer.status, body, usage: body.usage, headers };
    },
  };
}
