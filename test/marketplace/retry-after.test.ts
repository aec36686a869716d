// How long a 429 asks to wait: Retry-After (seconds or HTTP date), else X-RateLimit-Reset.
import { describe, expect, it } from 'vitest';
import { parseRateLimitReset, parseRetryAfter, retryAfterMs } from '../../src/marketplace/retry-after.ts';

const NOW = Date.UTC(2024, 0, 1, 12, 0, 0);

describe('parseRetryAfter', () => {
  it.each([
    ['seconds', '2', 2000],
    ['zero', '0', 0],
    ['fractional seconds round up', '1.5', 1500],
    ['padded', ' 3 ', 3000],
    ['HTTP date 10 s ahead', new Date(NOW + 10_000).toUTCString(), 10_000],
    ['HTTP date in the past', new Date(NOW - 10_000).toUTCString(), 0],
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['garbage', 'soon', undefined],
    ['negative', '-5', undefined],
  ])('%s', (_name, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});

describe('parseRateLimitReset', () => {
  it.each([
    ['epoch seconds 30 s ahead', String(NOW / 1000 + 30), 30_000],
    ['epoch seconds in the past', String(NOW / 1000 - 30), 0],
    ['epoch ms 5 s ahead', String(NOW + 5000), 5000],
    ['small: seconds from now', '12', 12_000],
    ['absent', undefined, undefined],
    ['garbage', 'x', undefined],
  ])('%s', (_name, value, expected) => {
    expect(parseRateLimitReset(value, NOW)).toBe(expected);
  });
});

describe('retryAfterMs', () => {
  it('prefers Retry-After', () =>
    expect(retryAfterMs({ 'retry-after': '1', 'x-ratelimit-reset': '9' }, NOW)).toBe(1000));
  it('falls back to X-RateLimit-Reset', () =>
    expect(retryAfterMs({ 'retry-after': 'junk', 'x-ratelimit-reset': '9' }, NOW)).toBe(9000));
  it('is undefined without either', () => expect(retryAfterMs({}, NOW)).toBeUndefined());
});
