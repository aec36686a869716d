// Thrown to callers whose requests were still waiting (queued, paused or backing off) when clear() ran.

export class QueueClearedError extends Error {
  override readonly name = 'QueueClearedError';
  /** Never sent, so never a duplicate: safe for the executor to treat as "not attempted". */
  readonly retryable = false;
  readonly outcomeUnknown = false;

  constructor(
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path} was not sent: the request queue was cleared`);
  }
}
