import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/sandbox/rate-limit.ts';
import { useSandbox } from './support.ts';

const { sb, api } = useSandbox({ rateLimit: { ratePerSec: 2, burst: 3 } });

describe('RateLimiter (token bucket, time passed in)', () => {
  it('allows the burst, then refuses with the seconds until the next token', () => {
    const l = new RateLimiter({ ratePerSec: 2, burst: 3 });
    expect([0, 0, 0].map(() => l.take('k', 1000).allowed)).toEqual([true, true, true]);
    expect(l.take('k', 1000)).toEqual({ allowed: false, remaining: 0, retryAfterSec: 1, fullInSec: 2 });
    expect(l.take('other', 1000).allowed).toBe(true); // one bucket per key
    expect(l.take('k', 1500).allowed).toBe(true); // half a second = one token at 2/s
    expect(l.take('k', 1500).allowed).toBe(false);
    const slow = new RateLimiter({ ratePerSec: 0.25, burst: 1 });
    slow.take('k', 0);
    expect(slow.take('k', 0).retryAfterSec).toBe(4);
  });
});

describe('rate limit over HTTP', () => {
  it('answers 429 Too Many Attempts with Retry-After and limit headers, and counts it', async () => {
    sb().resetCounters();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await api('GET', '/api/v1/accounts'));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    const r = limited[0]!;
    expect(r.body).toEqual({ message: 'Too Many Attempts.' });
    expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(r.headers.get('x-ratelimit-limit')).toBe('2'); // per second
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(answers[0]!.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(sb().counters().rateLimited).toBe(limited.length);
    expect(sb().counters().byRoute['GET /api/v1/accounts']!['429']).toBe(limited.length);
  });

  it('does not spend tokens on requests without a valid key; can be switched off', async () => {
    sb().setRateLimit(null);
    for (let i = 0; i < 10; i++) expect((await api('GET', '/api/v1/accounts')).status).toBe(200);
    sb().setRateLimit({ ratePerSec: 1, burst: 1 });
    for (let i = 0; i < 3; i++)
      expect((await api('GET', '/api/v1/accounts', undefined, { key: 'bad' })).status).toBe(401);
    expect((await api('GET', '/api/v1/accounts')).status).toBe(200);
    expect((await api('GET', '/api/v1/accounts')).status).toBe(429);
  });
});

describe('how the limit is advertised (a switch)', () => {
  const l = (headers: 'x-ratelimit' | 'ietf' | 'none', ratePerSec = 50) =>
    new RateLimiter({ ratePerSec, burst: 10, headers });
  it.each([
    ['x-ratelimit', 50, { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '9' }],
    ['ietf', 50, { 'ratelimit-policy': '"sandbox";q=50;w=1', ratelimit: '"sandbox";r=9;t=1' }],
    ['ietf', 0.5, { 'ratelimit-policy': '"sandbox";q=30;w=60', ratelimit: '"sandbox";r=9;t=2' }],
    ['none', 50, {}],
  ] as const)('%s at %f/s', (style, rate, want) => {
    const limiter = l(style, rate);
    expect(limiter.headers(limiter.take('k', 0))).toEqual(want);
  });

  it('sends the chosen headers over HTTP, and Retry-After on a 429 whatever the style', async () => {
    sb().setRateLimit({ ratePerSec: 1, burst: 1, headers: 'ietf' });
    const first = await api('GET', '/api/v1/accounts');
    expect(first.headers.get('ratelimit-policy')).toBe('"sandbox";q=1;w=1');
    expect(first.headers.get('x-ratelimit-limit')).toBeNull();
    sb().setRateLimit({ ratePerSec: 1, burst: 1, headers: 'none' });
    const ok = await api('GET', '/api/v1/accounts');
    const limited = await api('GET', '/api/v1/accounts');
    expect([ok.status, limited.status]).toEqual([200, 429]);
    for (const a of [ok, limited]) {
      expect(a.headers.get('ratelimit-policy')).toBeNull();
      expect(a.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect(limited.headers.get('retry-after')).toBe('1');
  });
});
