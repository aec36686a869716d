// Exponential backoff with full jitter (AWS's "Exponential Backoff And Jitter"), pure like rclone's
// pacer Calculate: the caller owns time and randomness, so tests are tables with no sleeping.

export interface BackoffInput {
  /** 0 for the first retry. */
  readonly attempt: number;
  readonly baseMs: number;
  readonly maxMs: number;
  /** In [0, 1), like Math.random. */
  readonly random: () => number;
}

/** The cap before jitter: min(maxMs, baseMs * 2^attempt). */
export function backoffCeiling(attempt: number, baseMs: number, maxMs: number): number {
  // 2^attempt overflows to Infinity for large attempts, which min() then caps: no special case needed.
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt));
}

/** A delay in [0, ceiling): full jitter spreads retries of many clients that failed together. */
export function backoffDelay({ attempt, baseMs, maxMs, random }: BackoffInput): number {
  return Math.floor(random() * backoffCeiling(attempt, baseMs, maxMs));
}
