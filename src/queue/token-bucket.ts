// A token bucket with injected time: `rate` tokens per second accrue up to `capacity`; a request spends one.

const EPSILON = 1e-6;

export class TokenBucket {
  #rate: number;
  readonly capacity: number;
  #tokens: number;
  #last: number;

  /** Starts full, so the first `capacity` requests go out at once. */
  constructor(opts: {
    readonly ratePerSec: number;
    readonly capacity: number;
    readonly now: number;
    readonly tokens?: number;
  }) {
    if (!(opts.ratePerSec > 0)) throw new RangeError(`TokenBucket: ratePerSec must be > 0, got ${opts.ratePerSec}`);
    if (!(opts.capacity >= 1)) throw new RangeError(`TokenBucket: capacity must be >= 1, got ${opts.capacity}`);
    this.#rate = opts.ratePerSec;
    this.capacity = opts.capacity;
    this.#tokens = Math.min(opts.capacity, opts.tokens ?? opts.capacity);
    this.#last = opts.now;
  }

  get rate(): number {
    return this.#rate;
  }

  /** Tokens available at `now` (fractional). */
  tokens(now: number): number {
    this.#refill(now);
    return this.#tokens;
  }

  /** Spends one token: 0 when granted, else the ms to wait before one is there (nothing spent). */
  take(now: number): number {
    this.#refill(now);
    // The epsilon absorbs float drift (0.998 + 0.002 landing at 0.9999999), which would cost a needless 1 ms wait.
    if (this.#tokens >= 1 - EPSILON) {
      this.#tokens = Math.max(0, this.#tokens - 1);
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.#tokens) * 1000) / this.#rate - EPSILON));
  }

  /** Changes the rate from `now` on; what accrued until then accrued at the old rate. */
  setRate(ratePerSec: number, now: number): void {
    if (!(ratePerSec > 0)) throw new RangeError(`TokenBucket: ratePerSec must be > 0, got ${ratePerSec}`);
    this.#refill(now);
    this.#rate = ratePerSec;
  }

  /**
   * Sets the level to `tokens` as of `at` (which may be in the future: nothing accrues before it). After a
   * 429 the queue empties the bucket until the pause ends, so the resume does not burst into a server that
   * has only just refilled.
   */
  reset(tokens: number, at: number): void {
    this.#tokens = Math.max(0, Math.min(this.capacity, tokens));
    this.#last = at;
  }

  /** At most `tokens` from `now` on (the server said how many requests it has left). */
  cap(tokens: number, now: number): void {
    this.#refill(now);
    this.#tokens = Math.min(this.#tokens, Math.max(0, tokens));
  }

  #refill(now: number): void {
    // Time never runs backwards here: a `now` before the last refill (or a future reset) adds nothing.
    if (now <= this.#last) return;
    this.#tokens = Math.min(this.capacity, this.#tokens + ((now - this.#last) * this.#rate) / 1000);
    this.#last = now;
  }
}
