/**
 * A small seeded generator (mulberry32): the same draws in [0, 1) for the same seed on any machine, so a
 * simulated network, a synthetic day of traffic or a failing random case replays from its seed. The
 * examples, the benches and the tests share this one.
 */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
