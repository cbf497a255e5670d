/**
 * The keyed limits' part of the saved format (format 3), and the check of a saved message's channel or key: the `keys` option with the template's rates in force,
 * and the live keys' states. Formats 1 and 2, written before keys existed, hold neither: a throttler restored
 * from them has no keys. Read as persisted-format.ts reads the rest, every field checked, every error naming
 * the path from the snapshot and the value.
 */
import { field, isRecord, readArray } from '../../policies/saved-fields.js';
import { checkRateDimensions, parseRates, type Rate, ThrottlerOptionError } from '../../rate/index.js';
import { isKeyName, type KeysOption } from '../options/keys-option.js';
import type { ResolvedOptions } from '../options/options.js';
import type { SavedKey } from './saved-policy.js';

/** The saved `keys` option as `resolveOptions` takes it (which checks its fields): null or absent is none. */
export function readKeysOption(value: unknown, path: string): KeysOption | undefined {
  if (value === null || value === undefined) return undefined;
  if (!isRecord(value)) throw new ThrottlerOptionError(path, 'null or an object { rates, idleAfter }', value);
  const idleAfter = field(value, 'idleAfter');
  return { rate: field(value, 'rates') as KeysOption['rate'], idleAfter: idleAfter as KeysOption['idleAfter'] };
}

/** The live keys as saved: [name, state, own rates or null] triples, each name a key (not a channel), once. */
export function readKeyStates(value: unknown, path: string, options: ResolvedOptions): Map<string, SavedKey> {
  const triples = readArray(value, path, 'an array of [name, state, rates or null] triples');
  const keys = new Map<string, SavedKey>();
  if (triples.length > 0 && options.keys === undefined) {
    throw new ThrottlerOptionError(path, 'empty without the keys option', triples);
  }
  for (const [index, entry] of triples.entries()) {
    const at = `${path}[${index}]`;
    const triple = readArray(entry, at, 'a [name, state, rates or null] triple');
    if (triple.length !== 3) throw new ThrottlerOptionError(at, 'a [name, state, rates or null] triple', triple);
    const name = triple[0];
    if (!isKeyName(name) || options.channels.has(name) || keys.has(name)) {
      throw new ThrottlerOptionError(`${at}[0]`, 'a key name (not a configured channel), named once', name);
    }
    const savedRates = triple[2];
    const rates: Rate[] | undefined = savedRates === null ? undefined : parseRates(savedRates as never, `${at}[2]`);
    if (rates !== undefined) checkRateDimensions(rates, options.dimensions, `${at}[2]`);
    keys.set(name, { saved: triple[1], path: `${at}[1]`, rates });
  }
  return keys;
}

/** A saved message's channel: absent, a configured channel, or (with keys) a key. */
export function readSavedChannel(value: unknown, path: string, options: ResolvedOptions): string | undefined {
  if (value === undefined || options.channels.has(value as string) || (options.keys && isKeyName(value))) {
    return value as string | undefined;
  }
  const channels = `a configured channel (${describeChannels(options)})`;
  throw new ThrottlerOptionError(path, options.keys ? `absent, ${channels} or a key` : `absent or ${channels}`, value);
}

export function describeChannels(options: ResolvedOptions): string {
  const names = [...options.channels.keys()].map((name) => JSON.stringify(name));
  return names.length === 0 ? 'none is configured' : `one of ${names.join(', ')}`;
}
