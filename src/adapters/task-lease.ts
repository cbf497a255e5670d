/**
 * The promise API's lease (engine/clearance/lease.ts): while nothing waits and the rate
 * allows it now, a `schedule` call starts its task at once, inside the call, on
 * a permit the machine leased for this synchronous stretch: no event, no queue
 * entry and no Task per task. The machine decides how many may start (LEASE);
 * the lease ends (LEASE_END) before anything else reaches the machine and, at
 * the latest, in a microtask at the end of the stretch, and what it spent is
 * recorded then.
 *
 * A lease spent whole is renewed within the stretch; one that came back short
 * (the window is full, a pause) is not asked for again until the stretch ends,
 * so a burst past the limit costs one LEASE, not one per task.
 */
import type { Lease } from '../engine/index.js';
import { LEASE_END_EVENT, leaseEvent, type OwnEvent } from '../machine/index.js';

/** Permits asked for at a time: large enough that a burst renews rarely, small enough to search quickly. */
export const LEASE_SIZE = 4096;

export class TaskLease {
  private readonly lease: Lease = { granted: 0, spent: 0 };
  private open = false;
  /** This stretch's last lease came back short: none is asked for until it ends. */
  private short = false;
  private stretchEnding = false;

  constructor(private readonly send: (event: OwnEvent) => void) {}

  /** Takes a permit for one task to start now; false when none can be leased (the task queues). */
  take(): boolean {
    const lease = this.lease;
    if (this.open && lease.spent < lease.granted) {
      lease.spent += 1;
      return true;
    }
    return this.renew();
  }

  /** The open lease is spent, or none is open: a new one, unless this stretch's last came back short. */
  private renew(): boolean {
    const lease = this.lease;
    this.end();
    if (this.short) return false;
    this.send(leaseEvent(LEASE_SIZE, lease));
    this.short = lease.granted < LEASE_SIZE;
    if (!this.stretchEnding) {
      this.stretchEnding = true;
      queueMicrotask(this.endStretch);
    }
    if (lease.granted === 0) return false;
    this.open = true;
    lease.spent = 1;
    return true;
  }

  /** Tasks started on the open lease, which the machine records when it ends (0 when none is open). */
  get startedUnrecorded(): number {
    return this.open ? this.lease.spent : 0;
  }

  /** Ends the open lease, if any: call it before anything else is sent to the machine. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    this.send(LEASE_END_EVENT);
  }

  private readonly endStretch = (): void => {
    this.stretchEnding = false;
    this.short = false;
    this.end();
  };
}
