/**
 * Why a message or task was refused or displaced because the queue was full (`capacity`): its own
 * class, like every other reason a task is rejected, so that a caller can tell "the queue was full"
 * from a failure. The promise API rejects the task with it; the machine's `rejected` and `dropped`
 * events (reason `'overflow'`, `'drop-oldest'`, `'drop-newest'`) carry it.
 */
export class ThrottlerOverflowError extends Error {
  override name = 'ThrottlerOverflowError';

  /**
   * `overflow`: the policy that decided (`'reject'`: this one was refused as it arrived, or it was of lower
   * priority than every waiting one; `'drop-oldest'`/`'drop-newest'`: a newer one took its place).
   */
  constructor(
    readonly overflow: 'reject' | 'drop-oldest' | 'drop-newest',
    message: string,
  ) {
    super(message);
  }
}
