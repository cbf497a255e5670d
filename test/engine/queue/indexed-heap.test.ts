import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexedHeap } from '../../../src/engine/queue/indexed-heap.js';
import { runs } from '../../support/property-runs.js';

describe('IndexedHeap', () => {
  it('comes out in order through random pushes, removals and key changes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom('push', 'pop', 'remove', 'update'), fc.integer({ min: 0, max: 15 }), fc.integer()),
          { maxLength: 200 },
        ),
        (operations) => {
          interface Item {
            key: number;
            slot: number;
          }
          const items = Array.from({ length: 16 }, (): Item => ({ key: 0, slot: -1 }));
          const heap = new IndexedHeap<Item>((a, b) => a.key < b.key, {
            get: (item) => item.slot,
            set: (item, slot) => (item.slot = slot),
          });
          const inHeap = new Set<Item>();
          for (const [operation, index, key] of operations) {
            const item = items[index] as Item;
            if (operation === 'push' && !inHeap.has(item)) {
              item.key = key;
              heap.push(item);
              inHeap.add(item);
            } else if (operation === 'pop') {
              const smallest = Math.min(...[...inHeap].map((held) => held.key));
              const popped = heap.pop();
              expect(popped?.key).toBe(inHeap.size === 0 ? undefined : smallest);
              if (popped !== undefined) inHeap.delete(popped);
            } else if (operation === 'remove') {
              heap.remove(item);
              inHeap.delete(item);
            } else if (operation === 'update' && inHeap.has(item)) {
              item.key = key;
              heap.update(item);
            }
            expect(heap.size).toBe(inHeap.size);
            const sorted = [...inHeap].map((held) => held.key).sort((a, b) => a - b);
            expect(heap.first(5).map((held) => held.key)).toEqual(sorted.slice(0, 5));
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
