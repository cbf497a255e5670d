/**
 * What every backend's limiter checks before it asks its store, so that each refuses alike, by name:
 * a request malformed whatever the rates (whether its cost fits the limits in force is the store's
 * call: another process may have changed them), the rates a setRate or setKeyTemplate gives, a pause.
 */
import { isKeyName, unknownChannelError } from '../engine/index.js';
import { keepingDimensions, parseRates, type Rate, type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { checkStoreDims, type DeclaredConfig } from './limiter-config.js';
import type { ReservationRequest } from './protocol.js';
import { storeCostText } from './store-cost.js';

/** Whether a name is a key: the limiter has keys, and the name is no channel and a valid key. */
export function isKeyIn(declared: DeclaredConfig, name: unknown): name is string {
  return declared.keys !== undefined && !declared.channels.has(name as string) && isKeyName(name);
}

/** A request malformed whatever the rates, refused; else its cost's text (storeCostText). */
export function requestRefusal(declared: DeclaredConfig, request: ReservationRequest): ThrottlerOptionError | string {
  if (typeof request !== 'object' || request === null) {
    return new ThrottlerOptionError('request', 'an object { channel?, cost }', request);
  }
  const channel = request.channel;
  if (channel !== undefined && !declared.channels.has(channel as string) && !isKeyIn(declared, channel)) {
    return unknownChannelError(channel, declared.channels.keys(), declared.keys !== undefined);
  }
  try {
    return storeCostText(request.cost, declared.dims);
  } catch (error) {
    return error as ThrottlerOptionError;
  }
}

/** The rates in force a limiter reports, to keep the dimensions a setRate does not name. */
interface RatesInForce {
  readonly rates: Rate[];
  readonly channels: ReadonlyMap<string, Rate[]>;
  readonly keyRates: Rate[] | undefined;
}

/** setRate's rates checked: the channel known (or a key), a dimension not named keeps its rates in force (as SET_RATE does). */
export function ratesToSet(
  declared: DeclaredConfig,
  inForce: RatesInForce,
  rates: RatesInput,
  channel?: string,
): Rate[] {
  if (channel !== undefined && !declared.channels.has(channel) && !isKeyIn(declared, channel)) {
    throw unknownChannelError(channel, declared.channels.keys(), declared.keys !== undefined);
  }
  const option = channel === undefined ? 'rate' : `channels.${channel}`;
  const current = channel === undefined ? inForce.rates : (inForce.channels.get(channel) ?? inForce.keyRates);
  const parsed = keepingDimensions(parseRates(rates, option), current);
  checkStoreDims(parsed, declared.dims, option);
  return parsed;
}

/** setKeyTemplate's rates checked (a limiter opened with keys only). */
export function templateToSet(
  declared: DeclaredConfig,
  keyRates: Rate[] | undefined,
  rates: RatesInput,
  name: string,
): Rate[] {
  if (declared.keys === undefined) {
    throw new ThrottlerOptionError('keyTemplate', 'set only on a limiter opened with keys', name);
  }
  const parsed = keepingDimensions(parseRates(rates, 'keys.rate'), keyRates);
  checkStoreDims(parsed, declared.dims, 'keys.rate');
  return parsed;
}

export function checkPause(durationMs: number): void {
  if (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs <= 0) {
    throw new ThrottlerOptionError('pause', 'a positive, finite duration in milliseconds', durationMs);
  }
}
