/**
 * What crosses between a region and home, once per ask (docs/regions.md): the ask, with the region's
 * bound (a give-back) and demand, and home's grant. Only durations each side measured cross; no clock
 * reading is ever compared.
 */

/** A region's ask. */
export interface ShareAsk {
  /** The region's name. */
  readonly region: string;
  /** The region's own number for this ask, echoed by the grant (the region keeps when it sent it). */
  readonly ask: number;
  /** k: the largest grant seq the region has applied (0: none). */
  readonly applied: number;
  /** c per rate: at most this many of the region's grants count in any window not wholly past. */
  readonly bound: readonly number[];
  /** Cost units waiting in the region plus its use: what home splits the limit by. 0 or more. */
  readonly demand: number;
}

/** Home's answer to an ask. */
export interface ShareGrant {
  /** The ask it answers. */
  readonly ask: number;
  /** Increasing at home, across restarts too; 0: nothing granted (home is waiting out a restart). */
  readonly seq: number;
  /** The region's share of each rate's limit, in force until `leaseMs` after the ask left. */
  readonly shares: readonly number[];
  /** D. */
  readonly leaseMs: number;
}
