// The request queue's options: each documented once here, defaults merged in one place, bad values
// refused at construction with the option's name, what was expected and what was received (p-queue's habit).
import { silentLogger, type Logger } from '../log/logger.ts';
import { systemClock, type Clock } from './clock.ts';
import type { QueueEvent } from './queue-event.ts';

export interface RequestQueueOptions {
  /** Requests per second the token bucket refills at, and the ceiling the AIMD climb returns to. Required, > 0. */
  readonly ratePerSec: number;
  /** Bucket capacity: requests that may start at once after a quiet spell. Default max(1, ceil(ratePerSec)). */
  readonly burst?: number;
  /**
   * Tokens in the bucket at start. Default burst. Fewer when the marketplace's own bucket may still be drained
   * by a run that ended moments ago: a fresh queue that assumes a full server bucket earns a 429 at once.
   */
  readonly startTokens?: number;
  /** Requests on the wire at once. Default 8. */
  readonly concurrency?: number;
  /** Tries per request, the first included; the last error is thrown as is. Default 6. */
  readonly maxAttempts?: number;
  /** Delay before retry n (0-based): random in [0, min(maxMs, baseMs * 2^n)). Default { baseMs: 250, maxMs: 30_000 }. */
  readonly backoff?: { readonly baseMs?: number; readonly maxMs?: number };
  /** Queue-wide pause after a 429 without Retry-After: doubles with each consecutive 429, capped at backoff.maxMs. Default 1000. */
  readonly rateLimitFallbackMs?: number;
  /** Floor of the AIMD decrease. Default ratePerSec / 64 (at most ratePerSec). */
  readonly minRatePerSec?: number;
  /** Default: the system clock. Tests pass a FakeClock. */
  readonly clock?: Clock;
  /** In [0, 1): the backoff jitter. Default Math.random. */
  readonly random?: () => number;
  /** Default: silent. */
  readonly logger?: Logger;
  /** Called synchronously for each QueueEvent (metrics, progress); must not throw. */
  readonly onEvent?: (e: QueueEvent) => void;
}

export interface ResolvedRequestQueueOptions {
  readonly ratePerSec: number;
  readonly burst: number;
  readonly startTokens: number;
  readonly concurrency: number;
  readonly maxAttempts: number;
  readonly backoff: { readonly baseMs: number; readonly maxMs: number };
  readonly rateLimitFallbackMs: number;
  readonly minRatePerSec: number;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: Logger;
  readonly onEvent: ((e: QueueEvent) => void) | undefined;
}

export function resolveRequestQueueOptions(opts: RequestQueueOptions): ResolvedRequestQueueOptions {
  const ratePerSec = check('ratePerSec', opts.ratePerSec, 'a finite number > 0', (v) => v > 0);
  const backoff = {
    baseMs: check('backoff.baseMs', opts.backoff?.baseMs ?? 250, 'a finite number >= 0', (v) => v >= 0),
    maxMs: check('backoff.maxMs', opts.backoff?.maxMs ?? 30_000, 'a finite number >= 0', (v) => v >= 0),
  };
  const burst = check(
    'burst',
    opts.burst ?? Math.max(1, Math.ceil(ratePerSec)),
    'an integer >= 1',
    (v) => Number.isInteger(v) && v >= 1,
  );
  const resolved: ResolvedRequestQueueOptions = {
    ratePerSec,
    burst,
    startTokens: check(
      'startTokens',
      opts.startTokens ?? burst,
      `a finite number from 0 to burst (${burst})`,
      (v) => v >= 0 && v <= burst,
    ),
    concurrency: check('concurrency', opts.concurrency ?? 8, 'an integer >= 1', (v) => Number.isInteger(v) && v >= 1),
    maxAttempts: check('maxAttempts', opts.maxAttempts ?? 6, 'an integer >= 1', (v) => Number.isInteger(v) && v >= 1),
    backoff: Object.freeze(backoff),
    rateLimitFallbackMs: check(
      'rateLimitFallbackMs',
      opts.rateLimitFallbackMs ?? 1000,
      'a finite number >= 0',
      (v) => v >= 0,
    ),
    minRatePerSec: check(
      'minRatePerSec',
      opts.minRatePerSec ?? Math.min(ratePerSec, ratePerSec / 64),
      `a finite number > 0 and <= ratePerSec (${ratePerSec})`,
      (v) => v > 0 && v <= ratePerSec,
    ),
    clock: opts.clock ?? systemClock,
    random: checkFn('random', opts.random ?? Math.random),
    logger: opts.logger ?? silentLogger,
    onEvent: opts.onEvent === undefined ? undefined : checkFn('onEvent', opts.onEvent),
  };
  return Object.freeze(resolved);
}

function check(name: string, value: unknown, expected: string, ok: (v: number) => boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value)) {
    throw new RangeError(`RequestQueue option "${name}": expected ${expected}, received ${describe(value)}`);
  }
  return value;
}

function checkFn<F>(name: string, value: F): F {
  if (typeof value !== 'function') {
    throw new TypeError(`RequestQueue option "${name}": expected a function, received ${describe(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  return typeof value;
}
