/**
 * Home's demand rule (docs/regions.md, "Moving a share"): a limit split over the regions in proportion to
 * their demands, by largest remainder, so the targets sum to the limit (ties go to the name first in order).
 */

/** Each region's target of `limit`, by demand; all 0 when nobody has any. */
export function splitByDemand(limit: number, demands: ReadonlyMap<string, number>): Map<string, number> {
  const targets = new Map<string, number>();
  let total = 0;
  for (const demand of demands.values()) total += demand;
  if (total <= 0) {
    for (const region of demands.keys()) targets.set(region, 0);
    return targets;
  }
  const remainders: { region: string; rest: number }[] = [];
  let given = 0;
  for (const [region, demand] of demands) {
    const exact = (limit * demand) / total;
    const whole = Math.floor(exact);
    targets.set(region, whole);
    given += whole;
    remainders.push({ region, rest: exact - whole });
  }
  remainders.sort((a, b) => b.rest - a.rest || (a.region < b.region ? -1 : 1));
  for (let i = 0; given < limit && i < remainders.length; i += 1, given += 1) {
    const region = (remainders[i] as { region: string }).region;
    targets.set(region, (targets.get(region) ?? 0) + 1);
  }
  return targets;
}
