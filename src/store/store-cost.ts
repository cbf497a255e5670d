/**
 * A message's cost as the store's scripts read it: a number without dimensions; with rates in dimensions,
 * one number per dimension in the store's numbering ('c1,c2,...', lua/prelude.ts parseCosts). A cost
 * comes as a number (that cost in every dimension), the engine's vector (a throttler's numbering is the
 * store's: both number the dimensions in the order `rate` names them), or a user's map of dimension to cost.
 */
import { ThrottlerOptionError, validateCost } from '../rate/index.js';

/**
 * The script's text for `cost`; throws a ThrottlerOptionError naming `path` (or `path.<dimension>`) and the
 * value. Whether it fits the limits is Redis' call (another process may have changed the rates). `settle`:
 * an actual cost, which may be 0 in every dimension (the grant is then taken out).
 */
export function storeCostText(
  cost: unknown,
  dims: readonly string[] | undefined,
  path = 'cost',
  settle = false,
): string {
  if (dims === undefined) {
    if (settle && cost === 0) return '0';
    return String(validateCost(cost, Number.POSITIVE_INFINITY));
  }
  let vector: number[];
  if (typeof cost === 'number') {
    if (!(settle && cost === 0)) validateCost(cost, Number.POSITIVE_INFINITY);
    vector = dims.map(() => cost);
  } else if (Array.isArray(cost)) {
    vector = dims.map((_, index) => checked(cost[index] ?? 0, `${path}[${index}]`));
  } else if (typeof cost === 'object' && cost !== null) {
    vector = dims.map(() => 0);
    const names = new Map(dims.map((name, index) => [name, index]));
    for (const name of Object.keys(cost)) {
      const index = names.get(name);
      const value = (cost as Record<string, unknown>)[name];
      if (index === undefined) {
        throw new ThrottlerOptionError(
          `${path}.${name}`,
          `absent: a dimension of the store's rates (${dims.map((dim) => JSON.stringify(dim)).join(', ')})`,
          value,
        );
      }
      vector[index] = checked(value, `${path}.${name}`);
    }
  } else {
    throw new ThrottlerOptionError(path, 'a number or an object of dimension to cost', cost);
  }
  if (!settle && !vector.some((value) => value > 0)) {
    throw new ThrottlerOptionError(path, 'a cost with at least one dimension above 0', cost);
  }
  return vector.join(',');
}

function checked(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ThrottlerOptionError(path, 'a non-negative integer', value);
  }
  return value;
}
