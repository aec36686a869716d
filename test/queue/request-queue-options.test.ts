// The request queue's options resolved: the defaults for a configured rate and for 'auto', the edges each check
// accepts, and the values it refuses (request-queue.test.ts has the common refusals).
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.ts';
import { systemClock } from '../../src/queue/clock.ts';
import { type RequestQueueOptions, resolveRequestQueueOptions } from '../../src/queue/request-queue-options.ts';

describe('resolveRequestQueueOptions', () => {
  it('a configured rate: starts there, regains a tenth of it per second, floors at 1/64 of it', () => {
    const o = resolveRequestQueueOptions({ ratePerSec: 64 });
    expect(o).toMatchObject({
      ratePerSec: 64,
      startRatePerSec: 64,
      startHoldPerSec: undefined,
      increasePerSec: 6.4,
      burst: 64,
      startTokens: 64,
      minRatePerSec: 1,
      onEvent: undefined,
    });
    expect(o.clock).toBe(systemClock);
    expect(o.random).toBe(Math.random);
    expect(o.logger).toBe(silentLogger);
    expect(Object.isFrozen(o.backoff)).toBe(true);
  });

  it('a slow configured rate: the floor is 0.1, but never above the rate itself', () => {
    expect(resolveRequestQueueOptions({ ratePerSec: 2 }).minRatePerSec).toBe(0.1);
    expect(resolveRequestQueueOptions({ ratePerSec: 0.05 }).minRatePerSec).toBe(0.05);
    expect(resolveRequestQueueOptions({ ratePerSec: 0.05 }).burst).toBe(1);
  });

  it("'auto': starts at 5, climbs by 5 a second, floors at 0.1, keeps a hold a run before found", () => {
    const o = resolveRequestQueueOptions({ ratePerSec: 'auto', startHoldPerSec: 40 });
    expect(o).toMatchObject({
      ratePerSec: 'auto',
      startRatePerSec: 5,
      startHoldPerSec: 40,
      increasePerSec: 5,
      burst: 5,
      minRatePerSec: 0.1,
    });
    const slow = resolveRequestQueueOptions({ ratePerSec: 'auto', startRatePerSec: 0.05 });
    expect(slow.minRatePerSec).toBe(0.05);
    // Any floor is under the sky for 'auto'.
    expect(resolveRequestQueueOptions({ ratePerSec: 'auto', minRatePerSec: 1e6 }).minRatePerSec).toBe(1e6);
  });

  it('a start hold is for auto only: ignored with a configured rate', () => {
    expect(resolveRequestQueueOptions({ ratePerSec: 5, startHoldPerSec: 4 }).startHoldPerSec).toBeUndefined();
  });

  it.each([
    ['backoff zero', { backoff: { baseMs: 0, maxMs: 0 } }],
    ['no fallback pause', { rateLimitFallbackMs: 0 }],
    ['one token burst', { burst: 1 }],
    ['an empty bucket at start', { startTokens: 0 }],
    ['a full bucket at start', { burst: 4, startTokens: 4 }],
    ['a single attempt', { maxAttempts: 1 }],
    ['one on the wire', { concurrency: 1 }],
    ['a floor at the rate', { minRatePerSec: 5 }],
  ] as const)('accepts the edge: %s', (_name, over) => {
    const o = resolveRequestQueueOptions({ ratePerSec: 5, ...over } as RequestQueueOptions);
    expect(o).toMatchObject(over);
  });

  it.each([
    [{ ratePerSec: -1 }, /"ratePerSec": expected a finite number > 0 or 'auto', received -1/],
    [{ ratePerSec: 'auto', startRatePerSec: 0 }, /"startRatePerSec": expected a finite number > 0, received 0/],
    [{ ratePerSec: 'auto', startHoldPerSec: 0 }, /"startHoldPerSec": expected a finite number > 0, received 0/],
    [{ ratePerSec: 5, increasePerSec: 0 }, /"increasePerSec": expected a finite number > 0, received 0/],
    [{ ratePerSec: 5, startTokens: -1 }, /"startTokens": expected a finite number from 0 to burst \(5\), received -1/],
    [{ ratePerSec: 5, maxAttempts: 2.5 }, /"maxAttempts": expected an integer >= 1, received 2.5/],
    [{ ratePerSec: 5, concurrency: 1.5 }, /"concurrency": expected an integer >= 1, received 1.5/],
    [{ ratePerSec: 5, minRatePerSec: 0 }, /"minRatePerSec": expected a finite number > 0 and <= ratePerSec/],
    [{ ratePerSec: 5, backoff: { maxMs: -1 } }, /"backoff.maxMs": expected a finite number >= 0, received -1/],
    [{ ratePerSec: 5, rateLimitFallbackMs: -1 }, /"rateLimitFallbackMs": expected a finite number >= 0/],
    [{ ratePerSec: 5, maxRetryAfterMs: 0 }, /"maxRetryAfterMs": expected a finite number > 0, received 0/],
    [{ ratePerSec: 5, onEvent: 'log' }, /"onEvent": expected a function, received "log"/],
    [{ ratePerSec: 5, random: false }, /"random": expected a function, received false/],
    [{ ratePerSec: 5, burst: true }, /"burst": expected an integer >= 1, received true/],
    [{ ratePerSec: 5, burst: {} }, /"burst": expected an integer >= 1, received object/],
    [{ ratePerSec: undefined }, /"ratePerSec": .*received undefined/],
    [{ ratePerSec: null }, /"ratePerSec": .*received null/],
    [{ ratePerSec: 5, backoff: { baseMs: -1 } }, /"backoff.baseMs": expected a finite number >= 0, received -1/],
  ])('refuses %o, naming the option, what it expects and what it got', (opts, message) => {
    expect(() => resolveRequestQueueOptions(opts as unknown as RequestQueueOptions)).toThrow(message);
  });

  it('refuses a bad number with a RangeError and a non-function with a TypeError', () => {
    expect(() => resolveRequestQueueOptions({ ratePerSec: 0 })).toThrow(RangeError);
    const noFn = { ratePerSec: 5, onEvent: 1 } as unknown as RequestQueueOptions;
    expect(() => resolveRequestQueueOptions(noFn)).toThrow(TypeError);
  });
});
