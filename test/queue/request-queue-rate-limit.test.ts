// The rate the queue sends at: 429 episodes (pause, decrease, climb back), the limits answers advertise, and the
// probing climb of ratePerSec 'auto'. All on the fake clock: the times asserted are fake-clock milliseconds.
import { describe, expect, it } from 'vitest';
import { flush } from '../../src/queue/fake-clock.ts';
import type { QueueEvent } from '../../src/queue/queue-event.ts';
import { deferred, drive, get, scripted, setup, tooMany } from './request-queue-harness.ts';

const ofType = <K extends QueueEvent['type']>(events: QueueEvent[], type: K) =>
  events.filter((e): e is Extract<QueueEvent, { type: K }> => e.type === type);

/** `n` requests on the wire together, each failing with its own error once `gate` opens, then answering 'ok'. */
function onWireThenFail(n: number, errors: (i: number) => unknown) {
  const gate = deferred();
  const sends = Array.from({ length: n }, (_, i) => {
    let first = true;
    return async () => {
      if (!first) return 'ok';
      first = false;
      await gate.promise;
      throw errors(i);
    };
  });
  return { gate, sends };
}

describe('RequestQueue 429 episodes', () => {
  it('reports the 429 and the pause it starts, and is no longer paused at the moment the pause ends', async () => {
    const { q, clock, t0, events } = setup({ ratePerSec: 100, burst: 100 });
    const p = q.schedule(get('/a'), scripted(clock, [tooMany(2000)], 'a').send);
    await flush();
    expect(ofType(events, 'rate-limited')).toEqual([
      { type: 'rate-limited', method: 'GET', path: '/a', retryAfterMs: 2000, rate: 50, firstOfEpisode: true },
    ]);
    expect(ofType(events, 'paused')).toEqual([{ type: 'paused', until: t0 + 2000, ms: 2000 }]);
    await clock.advance(2000);
    expect(q.stats()).toMatchObject({ isPaused: false, pausedUntil: null });
    await drive(clock, p);
  });

  it('announces the resume once, with the first request after the pause', async () => {
    const { q, clock, events } = setup({ ratePerSec: 100, burst: 100 });
    const a = q.schedule(get(), scripted(clock, [tooMany(1000)], 'a').send);
    await flush();
    const others = Array.from({ length: 4 }, () => q.schedule(get(), async () => 'b'));
    await drive(clock, Promise.all([a, ...others]));
    await drive(
      clock,
      q.schedule(get(), async () => 'later'),
    );
    expect(ofType(events, 'resumed')).toEqual([{ type: 'resumed', rate: 50 }]);
    const types = events.map((e) => e.type);
    expect(types.indexOf('resumed')).toBe(types.indexOf('request', types.indexOf('paused')) - 1);
  });

  it('a 429 with Retry-After: 0 goes again at once: the queue-wide pause is its only wait', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 100, burst: 100 });
    const s = scripted(clock, [tooMany(0)], 'ok');
    const p = q.schedule(get(), s.send);
    await flush();
    await flush();
    expect(s.at).toEqual([t0, t0]);
    await expect(p).resolves.toBe('ok');
  });

  it('a later 429 of one episode with a longer Retry-After extends the pause; no climb during it', async () => {
    const { q, clock, t0, events } = setup({ ratePerSec: 100, burst: 100, concurrency: 2 });
    const { gate, sends } = onWireThenFail(2, (i) => tooMany(i === 0 ? 1000 : 3000));
    const at: number[] = [];
    const all = Promise.all(
      sends.map((send) =>
        q.schedule(get(), async () => {
          const r = await send();
          at.push(clock.now() - t0);
          return r;
        }),
      ),
    );
    await flush();
    gate.resolve();
    await flush();
    expect(q.stats()).toMatchObject({ isPaused: true, pausedUntil: t0 + 3000, currentRate: 50 });
    expect(ofType(events, 'paused').map((e) => [e.until - t0, e.ms])).toEqual([
      [1000, 1000],
      [3000, 3000],
    ]);
    await clock.advance(3000);
    // Nothing climbed during the pause: 50/s from its end.
    expect(q.stats().currentRate).toBe(50);
    await drive(clock, all);
    expect(at).toEqual([3000, 3020]);
  });

  it('the 429s of one episode that agree on Retry-After pause the queue once', async () => {
    const { q, clock, t0, events } = setup({ ratePerSec: 80, burst: 80, concurrency: 4 });
    const { gate, sends } = onWireThenFail(4, () => tooMany(1000));
    const all = Promise.all(sends.map((send) => q.schedule(get(), send)));
    await flush();
    gate.resolve();
    await flush();
    expect(ofType(events, 'paused')).toEqual([{ type: 'paused', until: t0 + 1000, ms: 1000 }]);
    await drive(clock, all);
    expect(ofType(events, 'resumed')).toHaveLength(1);
  });

  it('the 429s of one episode without Retry-After pause for one fallback, not one doubled per answer', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 80, burst: 80, concurrency: 4, rateLimitFallbackMs: 1000 });
    const { gate, sends } = onWireThenFail(4, () => tooMany());
    const all = Promise.all(sends.map((send) => q.schedule(get(), send)));
    await flush();
    gate.resolve();
    await flush();
    expect(q.stats()).toMatchObject({ pausedUntil: t0 + 1000, rateLimited: 4, currentRate: 40 });
    await drive(clock, all);
    // The episode is over: the next 429 pauses for the fallback again, not twice it.
    const s = scripted(clock, [tooMany()], 'ok');
    await drive(clock, q.schedule(get(), s.send));
    expect(s.at[1]! - s.at[0]!).toBe(1000);
  });

  it('after a 429 the pace follows the climb back, not the halved rate', async () => {
    const { q, clock } = setup({ ratePerSec: 100, burst: 1 });
    await drive(clock, q.schedule(get(), scripted(clock, [tooMany(1000)], 'ok').send));
    await clock.advance(10_000);
    expect(q.stats().currentRate).toBe(90);
    const start = clock.now();
    const at: number[] = [];
    await drive(
      clock,
      Promise.all([1, 2, 3].map(() => q.schedule(get(), async () => void at.push(clock.now() - start)))),
    );
    // 90/s: a token every 11.1 ms (at 50/s it would be every 20 ms).
    expect(at).toEqual([0, 12, 24]);
  });
});

describe('RequestQueue auto rate', () => {
  it('the first 429 holds just below the rate it came at; another one right after the pause halves it', async () => {
    const { q, clock, events } = setup({ ratePerSec: 'auto', startRatePerSec: 10, burst: 1 });
    await drive(clock, q.schedule(get(), scripted(clock, [tooMany(1000), tooMany(1000)], 'ok').send));
    expect(ofType(events, 'rate-limited').map((e) => e.rate)).toEqual([9, 4.5]);
    expect(q.stats()).toMatchObject({ holdRate: 8.1 });
  });

  it('climbs while a single caller waits for each token', async () => {
    const { q, clock } = setup({ ratePerSec: 'auto', startRatePerSec: 5, increasePerSec: 5, burst: 1 });
    const at: number[] = [];
    for (let i = 0; i < 10; i++)
      await drive(
        clock,
        q.schedule(get(), async () => void at.push(clock.now())),
      );
    // Each wait for a token climbs by 5/s per second waited: the gaps shrink from the 200 ms of 5/s.
    expect(at.slice(1, 4).map((t, i) => t - (at[i] ?? 0))).toEqual([200, 167, 147]);
    expect(q.stats().currentRate).toBeCloseTo(10.935, 6);
  });

  it('climbs while requests queue behind the concurrency limit, though tokens are there', async () => {
    const { q, clock } = setup({ ratePerSec: 'auto', startRatePerSec: 5, increasePerSec: 5, burst: 1, concurrency: 1 });
    const all = Promise.all(Array.from({ length: 6 }, () => q.schedule(get(), () => clock.sleep(1000))));
    await drive(clock, all);
    // The first went before the others were asked for; then four seconds with requests queued: 5 + 4 × 5.
    expect(q.stats().currentRate).toBe(25);
  });
});

describe('RequestQueue adverts', () => {
  it('an advertised rate paces from the answer that carried it', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 'auto', startRatePerSec: 5, burst: 1 });
    await q.schedule(get(), async () => ({ rateLimit: { ratePerSec: 50 } }));
    await clock.advance(100);
    const at: number[] = [];
    await drive(
      clock,
      q.schedule(get(), async () => void at.push(clock.now() - t0)),
    );
    // At 50/s the token was back after 20 ms; at the old 5/s only half of it would be.
    expect(at).toEqual([100]);
  });

  it('the requests the marketplace says are left cap the bucket, less those still on the wire', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 10, burst: 10, concurrency: 3 });
    const gates = [deferred(), deferred(), deferred()];
    const first = gates.map((g, i) =>
      q.schedule(get(), async () => {
        await g.promise;
        return i === 0 ? { rateLimit: { remaining: 5 } } : 'ok';
      }),
    );
    await flush();
    expect(q.stats().pending).toBe(3);
    for (const g of gates) g.resolve();
    await Promise.all(first);
    // 5 left, 2 of them for the two answers still on the wire when it came: 3 tokens for the next.
    const at: number[] = [];
    await drive(
      clock,
      Promise.all(Array.from({ length: 5 }, () => q.schedule(get(), async () => void at.push(clock.now() - t0)))),
    );
    expect(at).toEqual([0, 0, 0, 100, 200]);
  });
});
