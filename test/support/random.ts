/**
 * A small seeded PRNG (mulberry32): the same sequence for the same seed every
 * time, so a failing random case can be replayed from its seed. Returns
 * numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A small seeded draw of whole numbers (Lehmer's minimal standard: state * 48271 mod 2^31 - 1): `draw(below)`
 * is in [0, below). The seed is a whole number from 1 to 2^31 - 2.
 */
export function seededDraw(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 48_271) % 2_147_483_647;
    return state % below;
  };
}
