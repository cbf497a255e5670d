/**
 * What one rate's audit found: the most cost any window of its interval has held, when, and how many
 * windows held more than its limit. Times are on the throttler's clock (`now`).
 */
export interface WindowFindings {
  /**
   * The most cost (deliveries of cost 1 count 1) that any window of `interval` ms closed by a delivery holds,
   * counting each delivery at its cost as it now stands (its actual cost once settled).
   */
  most: number;
  /** The time of the delivery that closed that fullest window (the first such), or undefined before any delivery. */
  mostAt: number | undefined;
  /**
   * How many deliveries closed a window holding more than `limit`: each delivery at `t` closes the window
   * `(t - interval, t]`, holding every delivery at `s` with `s + interval > t` and `s <= t`, those at `t` itself
   * included whatever their order (so the count does not depend on how deliveries at one time are ordered).
   * 0 is the promise kept.
   */
  windowsOver: number;
}

/**
 * How far back an audit keeps deliveries for a settle: entries whose window could still hold a delivery at or
 * after `from` (the oldest delivery still settleable). Shared by the audits of one throttler; `Infinity` keeps
 * only the window itself.
 */
export interface AuditRetention {
  from: number;
}

/** A WindowAudit as plain data: JSON has no undefined, so a `mostAt` not yet known is null. */
export interface WindowAuditJSON {
  limit: number;
  interval: number;
  most: number;
  mostAt: number | null;
  windowsOver: number;
  times: number[];
  costs: number[];
  /** How many deliveries each entry merges (absent: one each). */
  counts?: number[];
  /** The rate's dimension (rates in dimensions only). */
  dimension?: string;
}
