/**
 * How many runs a property makes: its full count scaled by the environment variable PROPERTY_RUNS, a
 * factor in (0, 1] (default 1), never fewer than one. `npm run test:quick`, the edit loop, sets 0.1;
 * `npm test` and CI run every property in full. Browsers have no process.env: full there too.
 */
const factor = readFactor();

function readFactor(): number {
  const raw = typeof process === 'undefined' ? undefined : process.env?.PROPERTY_RUNS;
  if (raw === undefined || raw === '') return 1;
  const value = Number(raw);
  if (!(value > 0 && value <= 1))
    throw new Error(`PROPERTY_RUNS must be a factor in (0, 1], got ${JSON.stringify(raw)}`);
  return value;
}

/** A property's run count: `full` in a full run, fewer in the edit loop (at least one). */
export function runs(full: number): number {
  return Math.max(1, Math.ceil(full * factor));
}

/** fast-check's default run count (100) scaled the same way, for a property that names none. */
export const DEFAULT_RUNS = runs(100);
