import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { resolveOptions } from '../../src/engine/index.js';
import { createThrottler, ThrottlerOptionError, throttlerMachine } from '../../src/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';

/**
 * An adapter checks its options once: the machine it builds takes the options the adapter resolved
 * rather than resolving them again, while input handed to the machine directly is still checked whole.
 */

/** Channels whose reading is counted: every resolution of the options walks them once. */
class CountedChannels extends Map<string, string> {
  reads = 0;
  override [Symbol.iterator](): MapIterator<[string, string]> {
    this.reads += 1;
    return super[Symbol.iterator]();
  }
}

/** How many times one resolveOptions call reads the channels. */
function readsOfOneResolution(): number {
  const channels = new CountedChannels([['a', '5/1s']]);
  resolveOptions({ rate: '10/1s', channels });
  return channels.reads;
}

describe('options resolved once', () => {
  it('createThrottler reads its options as often as one resolution does, not once more in the machine', async () => {
    const channels = new CountedChannels([['a', '5/1s']]);
    const throttler = createThrottler({ rate: '10/1s', channels });
    expect(channels.reads).toBe(readsOfOneResolution());
    expect(channels.reads).toBeGreaterThan(0);
    await expect(throttler.schedule(() => 'ran', { channel: 'a' })).resolves.toBe('ran');
    await throttler.stop();
  });

  it('throttleQueue reads its options as often as one resolution does', async () => {
    const channels = new CountedChannels([['a', '5/1s']]);
    const operator = throttleQueue<number>({ rate: '10/1s', channels, channel: () => 'a' });
    const seen: number[] = [];
    await new Promise<void>((done) =>
      of(1, 2)
        .pipe(operator)
        .subscribe({ next: (v) => seen.push(v), complete: done }),
    );
    expect(seen).toEqual([1, 2]);
    expect(channels.reads).toBe(readsOfOneResolution());
  });

  it("still checks the machine's own input whole", () => {
    const channels = new CountedChannels([['a', 'fast']]);
    const actor = createActor(throttlerMachine, { input: { rate: '10/1s', channels } });
    expect(actor.getSnapshot().status).toBe('error');
    expect(actor.getSnapshot().error).toBeInstanceOf(ThrottlerOptionError);
    expect((actor.getSnapshot().error as ThrottlerOptionError).option).toBe('channels.a');
  });
});
