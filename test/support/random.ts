export { seeded as seededRandom } from '../../examples/support/seeded-random.js';

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
