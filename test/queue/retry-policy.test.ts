import { describe, expect, it } from 'vitest';
import { advertOf, classify, type RetryDecision } from '../../src/queue/retry-policy.ts';

/** The flags the client's errors carry (src/marketplace/marketplace-errors.ts), without depending on its classes. */
function apiError(flags: {
  retryable: boolean;
  outcomeUnknown: boolean;
  rateLimited?: boolean;
  retryAfterMs?: number;
}): Error {
  return Object.assign(new Error('x'), flags);
}

const idem = { idempotent: true };
const create = { idempotent: false };

const rateLimited: RetryDecision = { retry: true, reason: 'rate limited', rateLimited: true };
const retryable: RetryDecision = { retry: true, reason: 'retryable', rateLimited: false };
const unknownIdempotent: RetryDecision = { retry: true, reason: 'outcome unknown, idempotent', rateLimited: false };
const unknownCreate: RetryDecision = {
  retry: false,
  reason: 'outcome unknown on a non-idempotent request',
  rateLimited: false,
};
const notRetryable: RetryDecision = { retry: false, reason: 'not retryable', rateLimited: false };
const notMarketplace: RetryDecision = { retry: false, reason: 'not a marketplace error', rateLimited: false };

describe('classify', () => {
  // The whole decision: its reason is what the queue's 'retry' and 'failed' events and logs say.
  it.each([
    ['429 on a GET', apiError({ retryable: true, outcomeUnknown: false, rateLimited: true }), idem, rateLimited],
    [
      '429 on a create (it did not happen)',
      apiError({ retryable: true, outcomeUnknown: false, rateLimited: true }),
      create,
      rateLimited,
    ],
    ['5xx on a GET', apiError({ retryable: true, outcomeUnknown: false }), idem, retryable],
    [
      '5xx on a PATCH (idempotent, outcome unknown)',
      apiError({ retryable: true, outcomeUnknown: true }),
      idem,
      unknownIdempotent,
    ],
    ['5xx on a create (outcome unknown)', apiError({ retryable: true, outcomeUnknown: true }), create, unknownCreate],
    ['timeout on a create', apiError({ retryable: true, outcomeUnknown: true }), create, unknownCreate],
    [
      'connect refused on a create (never sent)',
      apiError({ retryable: true, outcomeUnknown: false }),
      create,
      retryable,
    ],
    ['408 on a create', apiError({ retryable: true, outcomeUnknown: false }), create, retryable],
    ['422', apiError({ retryable: false, outcomeUnknown: false }), idem, notRetryable],
    ['404', apiError({ retryable: false, outcomeUnknown: false }), idem, notRetryable],
    ['501 (not retryable)', apiError({ retryable: false, outcomeUnknown: false }), idem, notRetryable],
    ['a plain Error', new Error('boom'), idem, notMarketplace],
    ['a TypeError from a bug', new TypeError('x is undefined'), idem, notMarketplace],
    ['a string', 'boom', idem, notMarketplace],
    ['null', null, idem, notMarketplace],
    ['undefined', undefined, idem, notMarketplace],
    [
      'truthy but not true',
      Object.assign(new Error('x'), { retryable: 'yes', rateLimited: 1, outcomeUnknown: 1 }),
      idem,
      notMarketplace,
    ],
    [
      'outcomeUnknown truthy but not true (a create is retried)',
      Object.assign(new Error('x'), { retryable: true, outcomeUnknown: 'yes' }),
      create,
      retryable,
    ],
  ] as const)('%s', (_name, error, meta, want) => {
    expect(classify(error, meta)).toStrictEqual(want);
  });

  it.each([
    [2500, 2500],
    [0, 0],
    [-1, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    ['2500', undefined],
    [undefined, undefined],
  ])('retryAfterMs %s -> %s', (hint, want) => {
    const d = classify(
      Object.assign(new Error('x'), { retryable: true, outcomeUnknown: false, rateLimited: true, retryAfterMs: hint }),
      idem,
    );
    expect(d.retryAfterMs).toBe(want);
    // No hint: no field at all, not one holding undefined.
    expect('retryAfterMs' in d).toBe(want !== undefined);
  });

  it('keeps the hint of a retryable error that is not a 429 (a 503 with Retry-After)', () => {
    expect(classify(apiError({ retryable: true, outcomeUnknown: false, retryAfterMs: 700 }), idem)).toStrictEqual({
      ...retryable,
      retryAfterMs: 700,
    });
  });
});

describe('advertOf', () => {
  it.each([
    ['an answer without rateLimit', { items: [] }, undefined],
    ['null', null, undefined],
    ['undefined', undefined, undefined],
    ['a string', 'ok', undefined],
    ['rateLimit null', { rateLimit: null }, undefined],
    ['rateLimit not an object', { rateLimit: 5 }, undefined],
    ['both fields', { rateLimit: { ratePerSec: 2.5, remaining: 7 } }, { ratePerSec: 2.5, remaining: 7 }],
    ['none left', { rateLimit: { remaining: 0 } }, { remaining: 0 }],
    ['a rate of 0 is no rate', { rateLimit: { ratePerSec: 0, remaining: 3 } }, { remaining: 3 }],
    [
      'bad values dropped',
      { rateLimit: { ratePerSec: Number.POSITIVE_INFINITY, remaining: -1 } },
      {} satisfies Record<string, never>,
    ],
    ['NaN and strings dropped', { rateLimit: { ratePerSec: Number.NaN, remaining: '4' } }, {}],
  ] as const)('%s', (_name, answer, want) => {
    expect(advertOf(answer)).toStrictEqual(want);
  });

  it('reads the advert an error carries too', () => {
    expect(advertOf(Object.assign(new Error('429'), { rateLimit: { ratePerSec: 1 } }))).toStrictEqual({
      ratePerSec: 1,
    });
  });
});
