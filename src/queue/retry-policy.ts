// One place that decides whether a failed request is tried again (rclone's shouldRetry). It reads the
// fields every client error carries, duck-typed, so the queue does not depend on the client's classes.
import type { RequestMeta } from './request-scheduler.ts';

export interface RetryDecision {
  readonly retry: boolean;
  /** Why, for logs and events. */
  readonly reason: string;
  /** A 429: pause the whole queue and lower the rate. */
  readonly rateLimited: boolean;
  /** The server's hint (Retry-After / X-RateLimit-Reset), already in ms. */
  readonly retryAfterMs?: number;
}

interface ErrorFlags {
  readonly retryable?: unknown;
  readonly rateLimited?: unknown;
  readonly retryAfterMs?: unknown;
  readonly outcomeUnknown?: unknown;
}

export function classify(error: unknown, meta: Pick<RequestMeta, 'idempotent'>): RetryDecision {
  const flags: ErrorFlags = typeof error === 'object' && error !== null ? (error as ErrorFlags) : {};
  const hint = flags.retryAfterMs;
  const retryAfterMs = typeof hint === 'number' && Number.isFinite(hint) && hint >= 0 ? hint : undefined;
  const withHint = retryAfterMs === undefined ? {} : { retryAfterMs };

  // A 429 means the request was not served: retrying cannot duplicate anything, even a create.
  if (flags.rateLimited === true) return { retry: true, reason: 'rate limited', rateLimited: true, ...withHint };
  if (flags.retryable !== true) {
    return {
      retry: false,
      reason: flags.retryable === false ? 'not retryable' : 'not a marketplace error',
      rateLimited: false,
    };
  }
  if (flags.outcomeUnknown === true && !meta.idempotent) {
    // docs/architecture.md, Journal: the executor looks by GET before it creates again.
    return { retry: false, reason: 'outcome unknown on a non-idempotent request', rateLimited: false };
  }
  return {
    retry: true,
    reason: flags.outcomeUnknown === true ? 'outcome unknown, idempotent' : 'retryable',
    rateLimited: false,
    ...withHint,
  };
}

/** What an answer said about the rate limit, duck-typed like the error flags above (the client's advert). */
export interface LimitAdvert {
  /** Requests per second the marketplace allows. */
  readonly ratePerSec?: number;
  /** Requests it will still take. */
  readonly remaining?: number;
}

/** The `rateLimit` a client answer or error carries, checked field by field. */
export function advertOf(answer: unknown): LimitAdvert | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const advert = (answer as { rateLimit?: unknown }).rateLimit;
  if (typeof advert !== 'object' || advert === null) return undefined;
  const { ratePerSec, remaining } = advert as { ratePerSec?: unknown; remaining?: unknown };
  const ok = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isFinite(v) && v >= min;
  return {
    ...(ok(ratePerSec, Number.MIN_VALUE) ? { ratePerSec } : {}),
    ...(ok(remaining, 0) ? { remaining } : {}),
  };
}
