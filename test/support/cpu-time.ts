/**
 * The CPU time `work` took, in ms: what the complexity tests compare (twice the input, about twice the
 * time). Wall time counts the moments other processes held the CPU too, which on a busy machine falls
 * on a long run far more than on a short one and reads as a quadratic term. Node's process.cpuUsage
 * counts this process only: Vitest runs each worker in a process of its own (the forks pool). A browser
 * gives no CPU time: the tests that use this skip there (IN_A_BROWSER).
 */
export function cpuMsOf(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/** True in the browser project. */
export const IN_A_BROWSER = typeof window !== 'undefined';
