/**
 * Issue 16's targets on W1-W3 (its W5 targets are in report-w5-w6.ts): the
 * machine near XState's own cost for every strategy, one QUEUE per message as
 * fast to enqueue as p-queue, the promise API near the bare promise-per-task
 * floor, and every strict path of ours adding under 0.5 ms to its own window.
 */

import type { BenchResults, Target } from './bench-results.js';
import type { Contender } from './contenders.js';
import { fixed, integer } from './markdown.js';

function byId<T extends { contender: Contender }>(results: readonly T[] | undefined, id: string): T | undefined {
  return results?.find((result) => result.contender.id === id);
}

export function issue16Targets(results: BenchResults): Target[] {
  const out: Target[] = [];
  const xstateFloor = byId(results.w1, 'baseline-xstate');
  for (const ours of (results.w1 ?? []).filter((one) => one.contender.floor === 'baseline-xstate')) {
    if (xstateFloor === undefined) break;
    const share = ours.tasksPerSecond / xstateFloor.tasksPerSecond;
    out.push({
      workload: 'W1',
      target: `${ours.contender.name}: at least 80% of ${xstateFloor.contender.name}`,
      measured: `${integer(ours.tasksPerSecond)} vs ${integer(xstateFloor.tasksPerSecond)} tasks/s: ${fixed(100 * share, 0)}%`,
      met: share >= 0.8,
    });
  }
  const machine = byId(results.w2, 'machine-sliding');
  const pQueue = byId(results.w2, 'p-queue');
  if (machine !== undefined && pQueue !== undefined) {
    out.push({
      workload: 'W2',
      target: `${machine.contender.name}: ${integer(results.config.w2.size)} enqueued no slower than ${pQueue.contender.name}`,
      measured: `${fixed(machine.enqueueSeconds, 2)} vs ${fixed(pQueue.enqueueSeconds, 2)} s: ${fixed(machine.enqueueSeconds / pQueue.enqueueSeconds, 2)}x`,
      met: machine.complete && pQueue.complete && machine.enqueueSeconds <= pQueue.enqueueSeconds,
    });
  }
  const promise = byId(results.w2, 'promise-sliding');
  const promiseFloor = byId(results.w2, 'baseline-promise-queue');
  if (promise !== undefined && promiseFloor !== undefined) {
    const ratio = promise.enqueueSeconds / promiseFloor.enqueueSeconds;
    out.push({
      workload: 'W2',
      target: `${promise.contender.name}: enqueued within 1.2x of ${promiseFloor.contender.name}`,
      measured: `${fixed(promise.enqueueSeconds, 2)} vs ${fixed(promiseFloor.enqueueSeconds, 2)} s: ${fixed(ratio, 2)}x`,
      met: promise.complete && promiseFloor.complete && ratio <= 1.2,
    });
  }
  // Strict paths only: the timer strategy allows up to 2N in a window by design.
  for (const strict of (results.w3 ?? []).filter(
    (one) => one.contender.kind === 'ours' && one.contender.id !== 'machine-timer',
  )) {
    out.push({
      workload: 'W3',
      target: `${strict.contender.name}: own-window delay p99 under 0.5 ms, zero violating windows`,
      measured: `${fixed(strict.ownDelayP99Ms, 2)} ms, ${strict.violatingWindows} violating`,
      met: strict.started === strict.tasks && strict.violatingWindows === 0 && strict.ownDelayP99Ms < 0.5,
    });
  }
  return out;
}
