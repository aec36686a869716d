// A token bucket per API key: `burst` tokens, refilled at `ratePerSec`. Time is passed in, so the
// arithmetic can be tested without waiting.
import type { RateLimit } from './sandbox-options.ts';

export interface RateDecision {
  readonly allowed: boolean;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Seconds until a token is there again (ceil, at least 1); 0 when allowed. */
  readonly retryAfterSec: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(readonly limit: RateLimit) {}

  take(key: string, nowMs: number): RateDecision {
    const { ratePerSec, burst } = this.limit;
    const b = this.buckets.get(key) ?? { tokens: burst, at: nowMs };
    b.tokens = Math.min(burst, b.tokens + ((nowMs - b.at) / 1000) * ratePerSec);
    b.at = nowMs;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, remaining: Math.floor(b.tokens), retryAfterSec: 0 };
    }
    return { allowed: false, remaining: 0, retryAfterSec: Math.max(1, Math.ceil((1 - b.tokens) / ratePerSec)) };
  }
}
