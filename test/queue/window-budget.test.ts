// The window budget in front of the token bucket: learnt from the first 429 of a limiter that counts N requests in
// fixed windows and bans the address, then never exceeded. On the fake clock, against a fake marketplace that
// counts as the real site does (fixed windows from the epoch, a ban not extended by the requests during it).
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../src/queue/fake-clock.ts';
import { loadLearntWindow, saveLearntWindow } from '../../src/queue/learnt-window.ts';
import type { QueueMeta } from '../../src/queue/queue-meta.ts';
import { WindowBudget } from '../../src/queue/window-budget.ts';
import { learnWindowRequests, pacedWindow } from '../../src/queue/window-limit.ts';
import { WindowBudgets } from '../../src/queue/window-budgets.ts';
import { drive, FakeApiError, get, setup } from './request-queue-harness.ts';

/** The site's limiter: `limit` requests per fixed window of `windowMs`, then a ban of `banMs`. */
function fakeSite(clock: FakeClock, limit: number, windowMs: number, banMs: number) {
  let start = -1;
  let count = 0;
  let bannedUntil = 0;
  const log = { served: [] as number[], refused: [] as number[] };
  const send = async (): Promise<string> => {
    const now = clock.now();
    const ws = Math.floor(now / windowMs) * windowMs;
    if (ws !== start) [start, count] = [ws, 0];
    if (now < bannedUntil || count >= limit) {
      if (now >= bannedUntil) bannedUntil = now + banMs;
      log.refused.push(now);
      throw new FakeApiError('429', {
        retryable: true,
        outcomeUnknown: false,
        rateLimited: true,
        retryAfterMs: banMs,
      });
    }
    count++;
    log.served.push(now);
    return 'ok';
  };
  return { send, log };
}

/** The most requests that fell into any one fixed window of the site. */
function busiestWindow(times: readonly number[], windowMs: number): number {
  const per = new Map<number, number>();
  for (const t of times) per.set(Math.floor(t / windowMs), (per.get(Math.floor(t / windowMs)) ?? 0) + 1);
  return Math.max(0, ...per.values());
}

describe('learnWindowRequests', () => {
  // Windows of 1000 ms from the epoch; the refused request went at 10_500.
  it.each([
    ['a burst inside one window: all of it', [10_100, 10_200, 10_300], 3],
    ['a burst across a window start: only what the site counted since', [9_800, 9_900, 10_100], 1],
    ['older than a window: not counted', [9_400, 10_200], 1],
    ['sent in the same ms as the refused one: counted', [10_100, 10_500, 10_500], 3],
    ['nothing before it: one (never zero)', [], 1],
  ])('%s', (_name, sends, want) => {
    expect(learnWindowRequests(sends, 10_500, 1000)).toBe(want);
  });

  it('paces a little under the window it learnt', () => {
    expect(pacedWindow({ requests: 300, seconds: 60 })).toEqual({ requests: 291, ms: 62_300 });
    expect(pacedWindow({ requests: 1, seconds: 1 })).toEqual({ requests: 1, ms: 1530 });
  });
});

describe('RequestQueue with a window budget', () => {
  it('meets one 429, learns the window from the requests before it, and never meets another', async () => {
    const window = new WindowBudget(1000);
    const { q, clock, events } = setup({ ratePerSec: 500, burst: 50, concurrency: 1, window });
    const site = fakeSite(clock, 40, 1000, 2000);
    const first = Array.from({ length: 150 }, () => q.schedule(get(), site.send));
    await drive(clock, Promise.all(first));
    expect(site.log.refused).toHaveLength(1);
    const learnt = events.filter((e) => e.type === 'window-learnt');
    expect(learnt).toEqual([
      { type: 'window-learnt', limit: { requests: 40, seconds: 1 }, bannedUntil: expect.any(Number) },
    ]);
    // Nothing went during the ban.
    const ban = site.log.refused[0]!;
    expect(site.log.served.filter((t) => t > ban && t < ban + 2000)).toEqual([]);
    const more = Array.from({ length: 150 }, () => q.schedule(get(), site.send));
    await drive(clock, Promise.all(more));
    expect(site.log.refused).toHaveLength(1);
    const afterBan = site.log.served.filter((t) => t >= ban + 2000);
    expect(busiestWindow(afterBan, 1000)).toBeLessThanOrEqual(40);
    // Used, not wasted: the paced 38 per 1.53 s.
    expect(busiestWindow(afterBan, 1000)).toBeGreaterThanOrEqual(30);
  });

  it('holds a second queue on the same budget through the ban, and counts both queues together', async () => {
    const budgets = new WindowBudgets();
    const a = setup({ ratePerSec: 500, burst: 50, concurrency: 1, window: budgets.budget('host', 1000) });
    const b = setup({
      ratePerSec: 500,
      burst: 50,
      concurrency: 1,
      clock: a.clock,
      window: budgets.budget('host', 1000),
    });
    const site = fakeSite(a.clock, 20, 1000, 3000);
    const all = [
      ...Array.from({ length: 60 }, () => a.q.schedule(get(), site.send)),
      ...Array.from({ length: 60 }, () => b.q.schedule(get(), site.send)),
    ];
    await drive(a.clock, Promise.all(all));
    // Both queues had a request on the wire when the window was spent: at most one 429 each, none after.
    expect(site.log.refused.length).toBeLessThanOrEqual(2);
    const lastRefused = Math.max(...site.log.refused);
    expect(site.log.served.filter((t) => t > lastRefused && t < site.log.refused[0]! + 3000)).toEqual([]);
    expect(busiestWindow(site.log.served, 1000)).toBeLessThanOrEqual(20);
  });

  it('learns nothing from a 429 that asks for less than a window, or that carries rate headers', async () => {
    const short = new WindowBudget(60_000);
    const s = setup({ ratePerSec: 500, burst: 50, window: short });
    let n = 0;
    const once = (err: unknown) => async () => {
      if (n++ === 0) throw err;
      return 'ok';
    };
    const tooMany = (retryAfterMs: number, extra = {}) =>
      Object.assign(
        new FakeApiError('429', { retryable: true, outcomeUnknown: false, rateLimited: true, retryAfterMs }),
        extra,
      );
    await drive(s.clock, s.q.schedule(get(), once(tooMany(1000))));
    expect(short.state(s.clock.now())).toEqual({ limit: null, bannedUntil: 0, recent: [] });
    n = 0;
    await drive(s.clock, s.q.schedule(get(), once(tooMany(300_000, { rateLimit: { remaining: 0 } }))));
    expect(short.state(s.clock.now())).toEqual({ limit: null, bannedUntil: 0, recent: [] });
  });
});

describe('WindowBudget.adopt', () => {
  it('counts the requests another process sent last, and waits out a ban it learnt', () => {
    const fresh = new WindowBudget(1000);
    // Paced at 9 per 1530 ms: 8 sent by the process before, so one more may go, then none until 5000 + 1530.
    const recent = [5000, 5100, 5200, 5300, 5400, 5500, 5600, 5700];
    fresh.adopt({ limit: { requests: 10, seconds: 1 }, bannedUntil: 0, recent });
    expect(fresh.wait(5900)).toBe(0);
    fresh.record(5900);
    expect(fresh.wait(5950)).toBe(581);
    expect(fresh.wait(6531)).toBe(0);
    const banned = new WindowBudget(1000);
    banned.adopt({ limit: null, bannedUntil: 9000, recent: [] });
    expect(banned.wait(8000)).toBe(1000);
    expect(banned.wait(9000)).toBe(0);
  });
});

describe('WindowBudget.learn', () => {
  it('takes a 429 after a handful of requests for a ban others earned: it holds the ban, learns no window', () => {
    const budget = new WindowBudget(60_000);
    let last = -1;
    for (let i = 0; i < 3; i++) last = budget.record(1000 + i);
    expect(budget.learn(last, 300_000, 2000)).toBeNull();
    expect(budget.state(2000)).toMatchObject({ limit: null, bannedUntil: 302_000 });
    expect(budget.wait(2000)).toBe(300_000);
  });

  it('lowers a known limit, never raises it', () => {
    const budget = new WindowBudget(60_000);
    budget.setLimit({ requests: 30, seconds: 60 });
    let last = -1;
    for (let i = 0; i < 50; i++) last = budget.record(1000 + i);
    expect(budget.learn(last, 300_000, 2000)).toEqual({ requests: 30, seconds: 60 });
    const lower = new WindowBudget(60_000);
    lower.setLimit({ requests: 300, seconds: 60 });
    for (let i = 0; i < 50; i++) last = lower.record(1000 + i);
    expect(lower.learn(last, 300_000, 2000)).toEqual({ requests: 49, seconds: 60 });
  });
});

describe('WindowBudget memory', () => {
  it('keeps only the sends of the last learning window, a limit known or not', () => {
    const budget = new WindowBudget(1000);
    for (let t = 0; t < 100_000; t += 10) budget.record(t);
    // 10 000 sends over 100 s, no limit known: only the last second's are left.
    expect(budget.kept).toBe(100);
    budget.setLimit({ requests: 1000, seconds: 1 });
    for (let t = 100_000; t < 200_000; t += 10) budget.record(t);
    expect(budget.kept).toBe(153); // the paced window, 1.53 s, is longer than the learning one
    expect(budget.state(199_990).recent).toHaveLength(153);
  });
});

describe('learnt window in the state db', () => {
  const memoryMeta = (): QueueMeta => {
    const m = new Map<string, string>();
    return { getMeta: async (k) => m.get(k), setMeta: async (k, v) => void m.set(k, v) };
  };

  it('is read back as saved, keeps the stricter limit and the later ban, and ignores what it cannot read', async () => {
    const meta = memoryMeta();
    const none = { limit: null, bannedUntil: 0, recent: [] };
    expect(await loadLearntWindow(meta, 'address:x')).toEqual(none);
    await saveLearntWindow(meta, 'address:x', { limit: { requests: 300, seconds: 60 }, bannedUntil: 5, recent: [1] });
    await saveLearntWindow(meta, 'address:x', { limit: { requests: 400, seconds: 60 }, bannedUntil: 3, recent: [2] });
    expect(await loadLearntWindow(meta, 'address:x')).toEqual({
      limit: { requests: 300, seconds: 60 },
      bannedUntil: 5,
      recent: [2],
    });
    expect(await loadLearntWindow(meta, 'address:y')).toEqual(none);
    await meta.setMeta('queue.window.address:z', '{"limit":{"requests":0,"seconds":60}}');
    expect(await loadLearntWindow(meta, 'address:z')).toEqual(none);
    await meta.setMeta('queue.window.address:z', 'not json');
    expect(await loadLearntWindow(meta, 'address:z')).toEqual(none);
  });
});
