// The request queue's options: each documented once here, defaults merged in one place, bad values
// refused at construction with the option's name, what was expected and what was received (p-queue's habit).
import { silentLogger, type Logger } from '../log/logger.ts';
import { systemClock, type Clock } from './clock.ts';
import type { QueueEvent } from './queue-event.ts';
import type { WindowBudget } from './window-budget.ts';

export interface RequestQueueOptions {
  /**
   * A number (> 0): the rate to start at and a hard ceiling. 'auto': find the rate. Start at startRatePerSec,
   * take a limit the marketplace advertises at once, else climb by increasePerSec each second until the first
   * 429 and hold just below it. Either way an advertised limit or a 429 lowers the rate. Required.
   */
  readonly ratePerSec: number | 'auto';
  /** Where 'auto' starts: a safe rate, or the rate a run before learnt. Default 5. Ignored for a number. */
  readonly startRatePerSec?: number;
  /** For 'auto': a hold a run before found (just below its 429); the climb stops there. Default none. */
  readonly startHoldPerSec?: number;
  /** Rate regained per second without a 429. Default: a tenth of ratePerSec; 5 for 'auto'. */
  readonly increasePerSec?: number;
  /** Bucket capacity: requests that may start at once after a quiet spell. Default max(1, ceil(start rate)). */
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
  /**
   * Delay before retry n (0-based): random in [0, min(maxMs, baseMs * 2^n)). Default { baseMs: 250, maxMs: 30_000 }.
   */
  readonly backoff?: { readonly baseMs?: number; readonly maxMs?: number };
  /**
   * Queue-wide pause after a 429 without Retry-After: doubles with each consecutive 429, capped at backoff.maxMs.
   * Default 1000.
   */
  readonly rateLimitFallbackMs?: number;
  /**
   * The longest the marketplace may make the queue wait: a Retry-After (or a rate-limit reset) asking more is
   * cut to this, with a warning, and an advertised rate slower than one request per this long is read as that.
   * Default 300000 (5 min).
   */
  readonly maxRetryAfterMs?: number;
  /** Floor of the AIMD decrease. Default ratePerSec / 64 (at least 0.1, at most ratePerSec); 0.1 for 'auto'. */
  readonly minRatePerSec?: number;
  /**
   * The marketplace's window (N requests per W s) and ban, shared with every queue that reaches it from the same
   * address: no request goes while it is spent or banned, and a 429 without rate headers whose Retry-After is
   * at least its learnWindowMs teaches it. Default: none (only the token bucket paces).
   */
  readonly window?: WindowBudget;
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
  readonly ratePerSec: number | 'auto';
  /** The rate the queue starts at: ratePerSec, or startRatePerSec for 'auto'. */
  readonly startRatePerSec: number;
  readonly startHoldPerSec: number | undefined;
  readonly increasePerSec: number;
  readonly burst: number;
  readonly startTokens: number;
  readonly concurrency: number;
  readonly maxAttempts: number;
  readonly backoff: { readonly baseMs: number; readonly maxMs: number };
  readonly rateLimitFallbackMs: number;
  readonly maxRetryAfterMs: number;
  readonly minRatePerSec: number;
  readonly window: WindowBudget | undefined;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: Logger;
  readonly onEvent: ((e: QueueEvent) => void) | undefined;
}

export function resolveRequestQueueOptions(opts: RequestQueueOptions): ResolvedRequestQueueOptions {
  const auto = opts.ratePerSec === 'auto';
  const ratePerSec = auto
    ? 'auto'
    : check('ratePerSec', opts.ratePerSec, "a finite number > 0 or 'auto'", (v) => v > 0);
  const ceiling = ratePerSec === 'auto' ? Number.POSITIVE_INFINITY : ratePerSec;
  const startRatePerSec =
    ratePerSec === 'auto'
      ? check('startRatePerSec', opts.startRatePerSec ?? 5, 'a finite number > 0', (v) => v > 0)
      : ratePerSec;
  const increasePerSec = check(
    'increasePerSec',
    opts.increasePerSec ?? (ratePerSec === 'auto' ? 5 : ratePerSec * 0.1),
    'a finite number > 0',
    (v) => v > 0,
  );
  const backoff = {
    baseMs: check('backoff.baseMs', opts.backoff?.baseMs ?? 250, 'a finite number >= 0', (v) => v >= 0),
    maxMs: check('backoff.maxMs', opts.backoff?.maxMs ?? 30_000, 'a finite number >= 0', (v) => v >= 0),
  };
  const burst = check(
    'burst',
    opts.burst ?? Math.max(1, Math.ceil(startRatePerSec)),
    'an integer >= 1',
    (v) => Number.isInteger(v) && v >= 1,
  );
  const resolved: ResolvedRequestQueueOptions = {
    ratePerSec,
    startRatePerSec,
    startHoldPerSec:
      ratePerSec === 'auto' && opts.startHoldPerSec !== undefined
        ? check('startHoldPerSec', opts.startHoldPerSec, 'a finite number > 0', (v) => v > 0)
        : undefined,
    increasePerSec,
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
    maxRetryAfterMs: check('maxRetryAfterMs', opts.maxRetryAfterMs ?? 300_000, 'a finite number > 0', (v) => v > 0),
    minRatePerSec: check(
      'minRatePerSec',
      opts.minRatePerSec ??
        (ratePerSec === 'auto' ? Math.min(0.1, startRatePerSec) : Math.min(ratePerSec, Math.max(0.1, ratePerSec / 64))),
      `a finite number > 0 and <= ratePerSec (${ratePerSec})`,
      (v) => v > 0 && v <= ceiling,
    ),
    window: opts.window,
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
