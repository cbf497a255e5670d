/**
 * The ideal weighted fair share (generalised processor sharing, the fluid model), brute force,
 * written from the definition and not from src/engine/fair-share.ts: a capacity is shared among
 * the keys that want some of it, each in proportion to its weight, and what a key cannot use (it
 * wants less than its proportion: its own limit, or too little work) goes to the others in the same
 * proportions, round after round, until the capacity is spent or every key has all it wants (max-min
 * fairness, "water-filling"). The property tests compare what each key received in a window with this.
 */

/** A key wanting service in one window: its weight and how much it could take at most (Infinity: any). */
export interface FluidDemand {
  readonly key: string;
  readonly weight: number;
  readonly wants: number;
}

/** Each key's ideal share of `capacity` (by key). */
export function fluidShares(demands: readonly FluidDemand[], capacity: number): Map<string, number> {
  const shares = new Map(demands.map(({ key }) => [key, 0]));
  let left = capacity;
  let open = demands.filter((demand) => demand.wants > 0);
  // Each round either spends what is left or satisfies at least one key: at most one round a key.
  while (left > 1e-9 && open.length > 0) {
    const totalWeight = open.reduce((sum, { weight }) => sum + weight, 0);
    const satisfied = open.filter(
      ({ key, weight, wants }) => wants - (shares.get(key) as number) <= (left * weight) / totalWeight,
    );
    if (satisfied.length === 0) {
      for (const { key, weight } of open) shares.set(key, (shares.get(key) as number) + (left * weight) / totalWeight);
      left = 0;
      break;
    }
    for (const { key, wants } of satisfied) {
      left -= wants - (shares.get(key) as number);
      shares.set(key, wants);
    }
    open = open.filter((demand) => !satisfied.includes(demand));
  }
  return shares;
}

/** Service a key of weight `weight` gets per ms when it shares `limit` per `interval` with keys weighing `totalWeight`. */
export function fairRate(weight: number, totalWeight: number, limit: number, interval: number): number {
  return ((weight / totalWeight) * limit) / interval;
}

/** The cost each key received in [from, to), by key. */
export function receivedIn(
  deliveries: readonly { at: number; cost: number; channel: string | undefined }[],
  from: number,
  to: number,
): Map<string | undefined, number> {
  const received = new Map<string | undefined, number>();
  for (const { at, cost, channel } of deliveries)
    if (at >= from && at < to) received.set(channel, (received.get(channel) ?? 0) + cost);
  return received;
}
