/**
 * The CPU time `work` took, in ms: what the complexity tests compare (twice the input, about twice the
 * time). Wall time counts the moments other processes held the CPU too, which on a busy machine falls
 * on a long run far more than on a short one and reads as a quadratic term. Node's process.cpuUsage
 * counts this process only: Vitest runs each worker in a process of its own (the forks pool). In a
 * browser, wall time.
 */
export function cpuMsOf(work: () => void): number {
  const cpuUsage = typeof process === 'undefined' ? undefined : process.cpuUsage;
  if (cpuUsage === undefined) {
    const started = performance.now();
    work();
    return performance.now() - started;
  }
  const before = cpuUsage();
  work();
  const spent = cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}
