// The real site's limiter as the sandbox's switch (rateLimit.window): per client address, fixed windows on the
// wall clock, a ban that the requests sent during it do not extend, no limit headers, and the User-Agent rules.
import { describe, expect, it } from 'vitest';
import { checkRateLimit, REAL_SERVER_SWITCHES_LIMITER } from '../../src/sandbox/sandbox-options.ts';
import { WindowLimiter } from '../../src/sandbox/window-limiter.ts';
import { sandboxOptions } from '../../src/cli/sandbox.ts';
import { useSandbox } from './support.ts';

const window = { requests: 3, seconds: 2, banSeconds: 5 };
const at = (address: string, userAgent = 'offersync/1.0.0') => ({ address, userAgent, accept: 'application/json' });

describe('WindowLimiter (time passed in)', () => {
  it('lets an address send its window, bans it on the next request for banSeconds, not extended meanwhile', () => {
    const l = new WindowLimiter({ window });
    // Windows start on multiples of 2 s since the epoch: 10_000 is one's start.
    expect([10_000, 10_500, 11_000].map((t) => l.admit(at('a'), t))).toEqual([undefined, undefined, undefined]);
    expect(l.admit(at('a'), 11_500)).toMatchObject({ why: 'over-window', retryAfterSec: 5 });
    expect(l.admit(at('b'), 11_500)).toBeUndefined(); // another address has its own window
    expect(l.admit(at('a'), 12_000)).toMatchObject({ why: 'banned', retryAfterSec: 5 }); // new window, still banned
    expect(l.admit(at('a'), 16_400)).toMatchObject({ why: 'banned' });
    expect(l.admit(at('a'), 16_500)).toBeUndefined(); // 11_500 + 5 s: the requests meanwhile did not extend it
  });

  it('is a fixed window: a full window just before its end and another just after are both served', () => {
    const l = new WindowLimiter({ window });
    for (const t of [11_700, 11_800, 11_900, 12_000, 12_100, 12_200]) expect(l.admit(at('a'), t)).toBeUndefined();
    expect(l.admit(at('a'), 12_300)?.why).toBe('over-window');
  });

  it('with userAgentRules: an empty User-Agent always gets 429, a library one 5 per window', () => {
    const l = new WindowLimiter({ window: { requests: 100, seconds: 60, banSeconds: 300 }, userAgentRules: true });
    expect(l.admit(at('a', ''), 0)).toMatchObject({ why: 'empty-user-agent', retryAfterSec: 300 });
    expect(l.admit(at('b'), 0)).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(l.admit(at('c', 'axios/1.7.2'), i)).toBeUndefined();
    expect(l.admit(at('c', 'axios/1.7.2'), 10)).toMatchObject({ why: 'library-user-agent' });
    expect(l.admit(at('c', 'offersync/1.0.0'), 20)).toMatchObject({ why: 'banned' }); // the whole address
    const off = new WindowLimiter({ window: { requests: 100, seconds: 60, banSeconds: 300 } });
    expect(off.admit(at('a', ''), 0)).toBeUndefined();
  });

  it('the real server preset: 300 per 60 s, a 300 s ban, no headers, the User-Agent rules on', () => {
    expect(checkRateLimit(REAL_SERVER_SWITCHES_LIMITER.rateLimit)).toEqual({
      window: { requests: 300, seconds: 60, banSeconds: 300 },
      headers: 'none',
      userAgentRules: true,
    });
    expect(() => checkRateLimit({ window: { requests: 0, seconds: 60, banSeconds: 300 } })).toThrow(
      /rateLimit.window.requests/,
    );
  });

  it('offersync sandbox --rate-window 300/60 --rate-ban 300 --user-agent-rules', () => {
    const { options } = sandboxOptions(['--rate-window', '300/60', '--rate-ban', '300', '--user-agent-rules'], {});
    expect(options.rateLimit).toEqual(REAL_SERVER_SWITCHES_LIMITER.rateLimit);
    expect(() => sandboxOptions(['--rate-window', '300'], {})).toThrow(/--rate-window/);
    expect(() => sandboxOptions(['--rate-window', '3/1', '--rate', '5'], {})).toThrow(/one limiter/);
  });
});

describe('the site window over HTTP', () => {
  const { sb, api } = useSandbox({ rateLimit: { window: { requests: 2, seconds: 3600, banSeconds: 3600 } } });

  it('answers 429 with Retry-After and no limit headers, a toast to JSON and a page to a browser', async () => {
    const ua = { 'user-agent': 'offersync/1.0.0' };
    const bad = await api('GET', '/api/v1/accounts', undefined, { key: 'wrong', headers: ua });
    expect(bad.status).toBe(401); // counted all the same: the site sees the request before the API
    const first = await api('GET', '/api/v1/accounts', undefined, { headers: ua });
    expect(first.status).toBe(200);
    const refused = await api('GET', '/api/v1/accounts', undefined, { headers: { ...ua, accept: 'application/json' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect([...refused.headers.keys()].filter((h) => h.includes('ratelimit'))).toEqual([]);
    expect(refused.body).toMatchObject({ blocked: true, sendToast: expect.any(Object) });
    const page = await api('GET', '/api/v1/accounts', undefined, { headers: { ...ua, accept: 'text/html,*/*' } });
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(sb().counters().rateLimited).toBe(2);
  });
});
