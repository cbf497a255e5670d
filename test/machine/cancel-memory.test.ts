import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** What a cancelled message leaves behind (the rest of CANCEL is test/machine/cancel.test.ts). */
describe('memory of cancelled messages', () => {
  it('is let go of at once, even for messages cancelled in the middle of the queue', () => {
    // A process of its own: garbage is collected on demand there (--expose-gc), and it reads real time.
    const script = fileURLToPath(new URL('../support/cancelled-memory.ts', import.meta.url));
    const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    const { machine, promiseApi } = JSON.parse(output) as Record<string, { queuedMB: number; heldMB: number }>;
    console.log(
      `10,000 waiting messages took ${machine?.queuedMB.toFixed(1)} MB, ${machine?.heldMB.toFixed(1)} MB held once ` +
        `all but two were cancelled; 10,000 tasks ${promiseApi?.queuedMB.toFixed(1)} MB, ` +
        `${promiseApi?.heldMB.toFixed(1)} MB held once all but two were aborted`,
    );
    // Before: cancelled entries stayed in the queue, with their messages, until the head passed them.
    expect(machine?.heldMB).toBeLessThan(0.1 * (machine?.queuedMB ?? 0));
    expect(promiseApi?.heldMB).toBeLessThan(0.1 * (promiseApi?.queuedMB ?? 0));
  }, 300_000);
});
