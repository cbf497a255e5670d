import type { CostPolicy } from '../../policies/index.js';
import { type Cost, type Dimensions, type Rate, ThrottlerOptionError, validateCost } from '../../rate/index.js';

/**
 * A message's cost checked against the limits that apply to it, once, as it is admitted: a number (the same in
 * every dimension) no larger than the smallest limit; or, with rates in dimensions, a map of dimension to cost
 * resolved into the engine's vector (`Dimensions.resolve`), each dimension's no larger than that dimension's
 * smallest limit. `limitIn(index)`: the smallest limit of that dimension among the rates that apply,
 * undefined when none of them names it. The vector travels on the message (`QueuedMessage.cost`), so no
 * later question looks a dimension name up.
 */
export function checkedCost(
  cost: unknown,
  smallestLimit: number,
  dimensions: Dimensions | undefined,
  limitIn: (index: number) => number | undefined,
): Cost {
  if (typeof cost !== 'object' || cost === null) return validateCost(cost ?? 1, smallestLimit);
  if (dimensions === undefined) {
    throw new ThrottlerOptionError('cost', 'a positive integer (a cost per dimension needs rates in dimensions)', cost);
  }
  if (Array.isArray(cost)) {
    throw new ThrottlerOptionError(
      'cost',
      `a positive integer or an object of dimension to cost (${dimensions.describe()})`,
      cost,
    );
  }
  return dimensions.resolve(cost, limitIn);
}

/** Whether a checked cost still fits the limits in force (a SET_RATE may have lowered one below it). */
export function costFits(cost: Cost, smallestLimit: number, limitIn: (index: number) => number | undefined): boolean {
  if (typeof cost === 'number') return cost <= smallestLimit;
  for (const [index, one] of cost.entries()) if (one > (limitIn(index) ?? Number.POSITIVE_INFINITY)) return false;
  return true;
}

/** The smallest limit of the overall policy and (if any) a channel's in one dimension; undefined if neither names it. */
export function smallestIn(index: number, overall: CostPolicy, channel: number | undefined): number | undefined {
  const own = overall.smallestLimitIn?.(index);
  if (own === undefined) return channel;
  return channel === undefined ? own : Math.min(own, channel);
}

/** The smallest limit of a dimension among rates (a key's template); undefined when none names it. */
export function smallestInRates(rates: readonly Rate[] | undefined, dimension: string | undefined): number | undefined {
  let smallest: number | undefined;
  for (const rate of rates ?? []) {
    if (rate.dimension === dimension) smallest = Math.min(smallest ?? Number.POSITIVE_INFINITY, rate.limit);
  }
  return smallest;
}

/** A SETTLED's cost, read as a delivery's was (no limit: it is matched against what is in flight). */
export function settledCost(cost: unknown, dimensions: Dimensions | undefined): Cost {
  const any = () => Number.MAX_SAFE_INTEGER;
  try {
    return checkedCost(cost, Number.MAX_SAFE_INTEGER, dimensions, any);
  } catch (error) {
    if (typeof cost === 'object' && cost !== null) throw error;
    throw new ThrottlerOptionError('cost', 'the positive integer cost of a delivery in flight', cost);
  }
}
