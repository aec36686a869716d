// A token bucket per API key: `burst` tokens, refilled at `ratePerSec`. Time is passed in, so the
// arithmetic can be tested without waiting.
import type { BucketRateLimit } from './sandbox-options.ts';

export interface RateDecision {
  readonly allowed: boolean;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Seconds until a token is there again (ceil, at least 1); 0 when allowed. */
  readonly retryAfterSec: number;
  /** Seconds until the bucket is full again (ceil). */
  readonly fullInSec: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(readonly limit: BucketRateLimit) {}

  take(key: string, nowMs: number): RateDecision {
    const { ratePerSec, burst } = this.limit;
    const b = this.buckets.get(key) ?? { tokens: burst, at: nowMs };
    b.tokens = Math.min(burst, b.tokens + ((nowMs - b.at) / 1000) * ratePerSec);
    b.at = nowMs;
    this.buckets.set(key, b);
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    const fullInSec = Math.ceil((burst - b.tokens) / ratePerSec);
    if (allowed) return { allowed, remaining: Math.floor(b.tokens), retryAfterSec: 0, fullInSec };
    return {
      allowed,
      remaining: 0,
      retryAfterSec: Math.max(1, Math.ceil((1 - b.tokens) / ratePerSec)),
      fullInSec,
    };
  }

  /**
   * The headers that advertise the limit, per `limit.headers`. X-RateLimit-Limit counts per second (as the
   * marketplaces we met do); the IETF policy states its window, in whole seconds as the draft wants.
   */
  headers(d: RateDecision): Record<string, string> {
    const { ratePerSec, headers = 'x-ratelimit' } = this.limit;
    switch (headers) {
      case 'x-ratelimit':
        return { 'x-ratelimit-limit': String(ratePerSec), 'x-ratelimit-remaining': String(d.remaining) };
      case 'ietf': {
        const w = Number.isInteger(ratePerSec) ? 1 : 60;
        return {
          'ratelimit-policy': `"sandbox";q=${Math.round(ratePerSec * w)};w=${w}`,
          ratelimit: `"sandbox";r=${d.remaining};t=${d.fullInSec}`,
        };
      }
      case 'none':
        return {};
      default:
        return headers satisfies never;
    }
  }
}
