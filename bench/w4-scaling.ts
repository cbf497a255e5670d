/**
 * W4, scaling: W1 at a small and a four times larger task count. With constant
 * work per task the time ratio is 4.0; a larger ratio means per-task work that
 * grows with the count (an O(n) shift, a growing scan) or memory pressure.
 */
import type { Contender } from './contenders.js';
import { overhead } from './w1-overhead.js';

export interface ScalingOptions {
  small: number;
  large: number;
  rounds: number;
}

export interface ScalingResult {
  contender: Contender;
  small: number;
  large: number;
  smallSeconds: number;
  largeSeconds: number;
  /** largeSeconds / smallSeconds, medians over the rounds (ideal: large / small). */
  ratio: number;
  complete: boolean;
}

export async function scaling(contenders: readonly Contender[], options: ScalingOptions): Promise<ScalingResult[]> {
  const results: ScalingResult[] = [];
  for (const contender of contenders) {
    const [smallRun] = await overhead([contender], { size: options.small, rounds: options.rounds });
    const [largeRun] = await overhead([contender], { size: options.large, rounds: options.rounds });
    if (smallRun === undefined || largeRun === undefined) continue;
    results.push({
      contender,
      small: smallRun.size,
      large: largeRun.size,
      smallSeconds: smallRun.seconds,
      largeSeconds: largeRun.seconds,
      ratio: largeRun.seconds / smallRun.seconds,
      complete: smallRun.complete && largeRun.complete,
    });
  }
  return results;
}
