/**
 * Why a message with a deadline (`deadline` or `maxWait`) was dropped undelivered: its deadline came
 * before the rate let it go. Its own class, so that a caller can tell "too late, as I asked" from a
 * failure: the promise API rejects an expired task with it, the operator hands it to `onDropped`.
 */
export class ThrottlerExpiredError extends Error {
  override name = 'ThrottlerExpiredError';

  /** `deadline`: the last moment it could have gone, on the throttler's clock (its `now`). */
  constructor(readonly deadline: number | undefined) {
    super(
      'Message dropped: its deadline (deadline or maxWait) passed before the rate let it go' +
        (deadline === undefined ? '' : ` (deadline ${deadline} ms on the throttler's clock)`),
    );
  }
}
