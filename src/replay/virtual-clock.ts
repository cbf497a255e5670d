/**
 * Virtual time for a replay: XState's clock (`setTimeout` / `clearTimeout`) and a `now` that reads it, with
 * every timer fired exactly at its time, earliest first, timers due at one instant in the order they were
 * armed. Time moves only when the replay moves it (`runUntil`), so a recorded day runs as fast as the
 * throttler decides. The library's own, not the tests' fake timers: nothing global is touched.
 */

interface Timer {
  at: number;
  order: number;
  fire: () => void;
}

/** Earlier first; at one time, the one armed first. */
function before(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}

export class VirtualClock {
  private time = 0;
  private armed = 0;
  private readonly heap: Timer[] = [];
  /** Timers not yet fired nor cleared, by id; a cleared one is left in the heap and skipped. */
  private readonly live = new Map<number, Timer>();

  readonly now = (): number => this.time;

  readonly setTimeout = (fire: (...args: unknown[]) => void, ms?: number): number => {
    const delay = typeof ms === 'number' && ms > 0 ? ms : 0;
    const timer: Timer = { at: this.time + delay, order: ++this.armed, fire: fire as () => void };
    this.live.set(timer.order, timer);
    this.push(timer);
    return timer.order;
  };

  readonly clearTimeout = (id: unknown): void => {
    this.live.delete(id as number);
  };

  /** The time of the next timer due, or Infinity when none is armed. */
  nextAt(): number {
    this.dropCleared();
    return this.heap[0]?.at ?? Infinity;
  }

  /**
   * Fires every timer due at or before `time`, each with the clock at its own time, then sets the clock
   * to `time` (never backwards). At most `limit` timers, so a throttler that re-arms at one instant for
   * ever cannot hang the replay: the count fired is returned.
   */
  runUntil(time: number, limit = Number.MAX_SAFE_INTEGER): number {
    let fired = 0;
    while (fired < limit && this.nextAt() <= time && this.heap.length > 0) {
      const timer = this.pop();
      this.live.delete(timer.order);
      if (timer.at > this.time) this.time = timer.at;
      fired++;
      timer.fire();
    }
    if (time > this.time && this.nextAt() > time) this.time = time;
    return fired;
  }

  private dropCleared(): void {
    while (this.heap.length > 0 && !this.live.has((this.heap[0] as Timer).order)) this.pop();
  }

  private push(timer: Timer): void {
    const heap = this.heap;
    heap.push(timer);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(timer, heap[parent] as Timer)) break;
      heap[at] = heap[parent] as Timer;
      at = parent;
    }
    heap[at] = timer;
  }

  private pop(): Timer {
    const heap = this.heap;
    const top = heap[0] as Timer;
    const last = heap.pop() as Timer;
    if (heap.length === 0) return top;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right] as Timer, heap[left] as Timer) ? right : left;
      if (!before(heap[child] as Timer, last)) break;
      heap[at] = heap[child] as Timer;
      at = child;
    }
    heap[at] = last;
    return top;
  }
}
