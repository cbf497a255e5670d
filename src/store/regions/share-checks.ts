/** Every field of an ask and a grant checked as it arrives (a message from the network is data to judge). */
import { ThrottlerOptionError } from '../../rate/index.js';
import type { ShareAsk, ShareGrant } from './share-messages.js';

function wholeAtLeast(option: string, value: unknown, least: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) {
    throw new ThrottlerOptionError(option, `a whole number, ${least} or more`, value);
  }
  return value;
}

function wholes(option: string, values: unknown, count: number): readonly number[] {
  if (!Array.isArray(values) || values.length !== count) {
    throw new ThrottlerOptionError(option, `a list of ${count} whole numbers, one per rate`, values);
  }
  for (const [i, value] of values.entries()) wholeAtLeast(`${option}[${i}]`, value, 0);
  return values;
}

/** An ask, checked against the number of rates. */
export function checkAsk(ask: ShareAsk, rates: number): ShareAsk {
  if (typeof ask !== 'object' || ask === null) {
    throw new ThrottlerOptionError('ask', 'an object { region, ask, applied, bound, demand }', ask);
  }
  if (typeof ask.region !== 'string' || ask.region.length === 0) {
    throw new ThrottlerOptionError('ask.region', "a region's non-empty name", ask.region);
  }
  wholeAtLeast('ask.ask', ask.ask, 0);
  wholeAtLeast('ask.applied', ask.applied, 0);
  wholes('ask.bound', ask.bound, rates);
  if (typeof ask.demand !== 'number' || !Number.isFinite(ask.demand) || ask.demand < 0) {
    throw new ThrottlerOptionError('ask.demand', 'a finite number, 0 or more', ask.demand);
  }
  return ask;
}

/** A grant, checked against the number of rates. */
export function checkGrant(grant: ShareGrant, rates: number): ShareGrant {
  if (typeof grant !== 'object' || grant === null) {
    throw new ThrottlerOptionError('grant', 'an object { ask, seq, shares, leaseMs }', grant);
  }
  wholeAtLeast('grant.ask', grant.ask, 0);
  wholeAtLeast('grant.seq', grant.seq, 0);
  wholes('grant.shares', grant.shares, rates);
  if (typeof grant.leaseMs !== 'number' || !Number.isFinite(grant.leaseMs) || grant.leaseMs < 0) {
    throw new ThrottlerOptionError('grant.leaseMs', 'a finite number of ms, 0 or more', grant.leaseMs);
  }
  return grant;
}

/** Home's list of regions to expect and how long it waits for them (ms), checked: names unique, non-empty. */
export function checkExpected(
  regions: unknown,
  awaitMs: unknown,
  awaitDefault: number,
): { regions: Set<string>; awaitMs: number } {
  const names = new Set<string>();
  if (regions !== undefined) {
    if (!Array.isArray(regions)) throw new ThrottlerOptionError('regions', "a list of regions' names", regions);
    for (const [i, name] of regions.entries()) {
      if (typeof name !== 'string' || name.length === 0) {
        throw new ThrottlerOptionError(`regions[${i}]`, "a region's non-empty name", name);
      }
      if (names.has(name)) throw new ThrottlerOptionError(`regions[${i}]`, 'a name not listed before', name);
      names.add(name);
    }
  }
  const wait = awaitMs ?? awaitDefault;
  if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) {
    throw new ThrottlerOptionError('awaitRegionsMs', 'a finite number of ms, 0 or more', awaitMs);
  }
  return { regions: names, awaitMs: wait };
}
