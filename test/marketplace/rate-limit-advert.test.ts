// What a marketplace's headers say about its rate limit, in every header family in use.
import { describe, expect, it } from 'vitest';
import { readRateLimitAdvert } from '../../src/marketplace/rate-limit-advert.ts';

const NOW = Date.UTC(2024, 0, 1, 12, 0, 0);

describe('readRateLimitAdvert', () => {
  it.each([
    ['nothing said', {}, undefined],
    [
      'X-RateLimit pair, per second by default',
      { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '49' },
      { ratePerSec: 50, remaining: 49 },
    ],
    [
      'X-RateLimit-Reset as epoch seconds',
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 3) },
      { remaining: 0, resetMs: 3000 },
    ],
    [
      'X-RateLimit-Limit stating its window (draft 1 form)',
      { 'x-ratelimit-limit': '600, 600;w=60' },
      { ratePerSec: 10 },
    ],
    [
      'IETF current: policy and remaining',
      { 'ratelimit-policy': '"default";q=100;w=10', ratelimit: '"default";r=7;t=4' },
      { ratePerSec: 10, remaining: 7, resetMs: 4000 },
    ],
    [
      'IETF current: two policies, the stricter binds',
      {
        'ratelimit-policy': '"burst";q=100;w=1, "day";q=86400;w=86400',
        ratelimit: '"burst";r=50;t=1, "day";r=3;t=600',
      },
      { ratePerSec: 1, remaining: 3, resetMs: 600_000 },
    ],
    [
      'IETF draft 3..6: RateLimit-Limit/Remaining/Reset and a policy',
      { 'ratelimit-limit': '100', 'ratelimit-remaining': '20', 'ratelimit-reset': '5', 'ratelimit-policy': '100;w=20' },
      { ratePerSec: 5, remaining: 20, resetMs: 5000 },
    ],
    [
      'IETF draft 7 dictionary',
      { ratelimit: 'limit=100, remaining=0, reset=2', 'ratelimit-policy': '100;w=50' },
      { ratePerSec: 2, remaining: 0, resetMs: 2000 },
    ],
    ['garbage is ignored', { 'x-ratelimit-limit': 'lots', 'ratelimit-policy': 'q=;w=0' }, undefined],
  ] as const)('%s', (_name, headers, want) => {
    expect(readRateLimitAdvert(headers, NOW, 1)).toEqual(want);
  });

  it('reads a bare limit over the configured window', () => {
    expect(readRateLimitAdvert({ 'x-ratelimit-limit': '60' }, NOW, 60)).toEqual({ ratePerSec: 1 });
  });
});
