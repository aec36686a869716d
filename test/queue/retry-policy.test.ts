import { describe, expect, it } from 'vitest';
import { classify } from '../../src/queue/retry-policy.ts';

/** The flags the client's errors carry (src/marketplace/errors.ts), without depending on its classes. */
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

describe('classify', () => {
  it.each([
    // name, error, meta, retry, rateLimited
    ['429 on a GET', apiError({ retryable: true, outcomeUnknown: false, rateLimited: true }), idem, true, true],
    [
      '429 on a create (it did not happen)',
      apiError({ retryable: true, outcomeUnknown: false, rateLimited: true }),
      create,
      true,
      true,
    ],
    ['5xx on a GET', apiError({ retryable: true, outcomeUnknown: false }), idem, true, false],
    [
      '5xx on a PATCH (idempotent, outcome unknown)',
      apiError({ retryable: true, outcomeUnknown: true }),
      idem,
      true,
      false,
    ],
    ['5xx on a create (outcome unknown)', apiError({ retryable: true, outcomeUnknown: true }), create, false, false],
    ['timeout on a create', apiError({ retryable: true, outcomeUnknown: true }), create, false, false],
    [
      'connect refused on a create (never sent)',
      apiError({ retryable: true, outcomeUnknown: false }),
      create,
      true,
      false,
    ],
    ['408 on a create', apiError({ retryable: true, outcomeUnknown: false }), create, true, false],
    ['422', apiError({ retryable: false, outcomeUnknown: false }), idem, false, false],
    ['404', apiError({ retryable: false, outcomeUnknown: false }), idem, false, false],
    ['501 (not retryable)', apiError({ retryable: false, outcomeUnknown: false }), idem, false, false],
    ['a plain Error', new Error('boom'), idem, false, false],
    ['a TypeError from a bug', new TypeError('x is undefined'), idem, false, false],
    ['a string', 'boom', idem, false, false],
    ['null', null, idem, false, false],
    ['truthy but not true', Object.assign(new Error('x'), { retryable: 'yes', rateLimited: 1 }), idem, false, false],
  ] as const)('%s', (_name, error, meta, retry, rateLimited) => {
    const d = classify(error, meta);
    expect(d.retry).toBe(retry);
    expect(d.rateLimited).toBe(rateLimited);
    expect(d.reason).toBeTruthy();
  });

  it.each([
    [2500, 2500],
    [0, 0],
    [-1, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [undefined, undefined],
  ])('retryAfterMs %s -> %s', (hint, want) => {
    const d = classify(
      Object.assign(new Error('x'), { retryable: true, outcomeUnknown: false, rateLimited: true, retryAfterMs: hint }),
      idem,
    );
    expect(d.retryAfterMs).toBe(want);
  });
});
