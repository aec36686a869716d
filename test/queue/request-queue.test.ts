import { describe, expect, it } from 'vitest';
import { flush } from '../../src/queue/fake-clock.ts';
import { QueueClearedError } from '../../src/queue/queue-cleared-error.ts';
import { RequestQueue } from '../../src/queue/request-queue.ts';
import type { RequestQueueOptions } from '../../src/queue/request-queue-options.ts';
import {
  create,
  deferred,
  drive,
  FakeApiError,
  get,
  refused,
  scripted,
  serverError,
  setup,
  tooMany,
} from './request-queue-harness.ts';

describe('RequestQueue options', () => {
  it.each([
    [{ ratePerSec: 0 }, /"ratePerSec": expected a finite number > 0 or 'auto', received 0/],
    [{ ratePerSec: Number.NaN }, /"ratePerSec": .*received NaN/],
    [{ ratePerSec: '5' as unknown as number }, /"ratePerSec": .*received "5"/],
    [{ ratePerSec: 5, burst: 0 }, /"burst": expected an integer >= 1, received 0/],
    [{ ratePerSec: 5, burst: 1.5 }, /"burst"/],
    [
      { ratePerSec: 5, burst: 2, startTokens: 3 },
      /"startTokens": expected a finite number from 0 to burst \(2\), received 3/,
    ],
    [{ ratePerSec: 5, concurrency: 0 }, /"concurrency": expected an integer >= 1, received 0/],
    [{ ratePerSec: 5, maxAttempts: 0 }, /"maxAttempts"/],
    [{ ratePerSec: 5, backoff: { baseMs: -1 } }, /"backoff.baseMs"/],
    [{ ratePerSec: 5, backoff: { maxMs: Number.POSITIVE_INFINITY } }, /"backoff.maxMs"/],
    [{ ratePerSec: 5, rateLimitFallbackMs: -5 }, /"rateLimitFallbackMs"/],
    [
      { ratePerSec: 5, minRatePerSec: 6 },
      /"minRatePerSec": expected a finite number > 0 and <= ratePerSec \(5\), received 6/,
    ],
    [{ ratePerSec: 5, random: 3 as unknown as () => number }, /"random": expected a function, received 3/],
  ] as const)('refuses %o', (opts, message) => {
    expect(() => new RequestQueue(opts as RequestQueueOptions)).toThrow(message);
  });

  it('merges defaults', () => {
    const q = new RequestQueue({ ratePerSec: 2.5 });
    expect(q.options).toMatchObject({
      ratePerSec: 2.5,
      burst: 3,
      concurrency: 8,
      maxAttempts: 6,
      backoff: { baseMs: 250, maxMs: 30_000 },
      rateLimitFallbackMs: 1000,
    });
    expect(Object.isFrozen(q.options)).toBe(true);
  });
});

describe('RequestQueue', () => {
  it('sends a request and returns its value', async () => {
    const { q } = setup();
    await expect(q.schedule(get(), async () => 42)).resolves.toBe(42);
    expect(q.stats()).toMatchObject({
      size: 0,
      pending: 0,
      requests: 1,
      retries: 0,
      failures: 0,
      isPaused: false,
      pausedUntil: null,
    });
  });

  it('runs higher priority first, FIFO within a priority', async () => {
    const { q } = setup({ concurrency: 1 });
    const gate = deferred();
    const order: string[] = [];
    const blocker = q.schedule(get('/block'), () => gate.promise);
    await flush();
    const later = (
      [
        ['low', 0],
        ['high', 10],
        ['mid', 5],
        ['high2', 10],
        ['none', undefined],
      ] as const
    ).map(([name, priority]) => q.schedule(get(`/${name}`, priority), async () => void order.push(name)));
    await flush();
    expect(q.stats()).toMatchObject({ size: 5, pending: 1 });
    gate.resolve();
    await Promise.all([blocker, ...later]);
    expect(order).toEqual(['high', 'high2', 'mid', 'low', 'none']);
  });

  it('a late high-priority request overtakes those already waiting for a token', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 10, burst: 1 });
    const order: string[] = [];
    const send = (name: string) => async () => void order.push(`${name}@${clock.now() - t0}`);
    const early = ['a', 'b', 'c'].map((name) => q.schedule(get(`/${name}`), send(name)));
    await clock.advance(50);
    const urgent = q.schedule(get('/urgent', 10), send('urgent'));
    await drive(clock, Promise.all([...early, urgent]));
    expect(order).toEqual(['a@0', 'b@100', 'urgent@200', 'c@300']);
  });

  it('paces at the configured rate after a full first burst', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 10, burst: 3 });
    const at: number[] = [];
    const all = Promise.all(
      Array.from({ length: 8 }, () => q.schedule(get(), async () => void at.push(clock.now() - t0))),
    );
    await drive(clock, all);
    expect(at).toEqual([0, 0, 0, 100, 200, 300, 400, 500]);
  });

  it('starts with only `startTokens` when the marketplace may still be drained by a run just ended', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 10, burst: 3, startTokens: 1 });
    const at: number[] = [];
    const all = Promise.all(
      Array.from({ length: 4 }, () => q.schedule(get(), async () => void at.push(clock.now() - t0))),
    );
    await drive(clock, all);
    expect(at).toEqual([0, 100, 200, 300]);
  });

  it('keeps at most `concurrency` requests on the wire', async () => {
    const { q } = setup({ concurrency: 3 });
    let onWire = 0;
    let peak = 0;
    const all = Promise.all(
      Array.from({ length: 20 }, () =>
        q.schedule(get(), async () => {
          peak = Math.max(peak, ++onWire);
          await flush();
          onWire--;
        }),
      ),
    );
    await all;
    expect(peak).toBe(3);
  });

  it('retries a retryable error with exponential backoff and full jitter, then succeeds', async () => {
    const { q, clock, t0, events } = setup();
    const s = scripted(clock, [serverError(1), serverError(2), serverError(3)], 'ok');
    await expect(drive(clock, q.schedule(get(), s.send))).resolves.toBe('ok');
    // random 0.5: half of 250, 500, 1000
    expect(s.at.map((t) => t - t0)).toEqual([0, 125, 375, 875]);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e.type === 'retry' ? e.delayMs : -1))).toEqual([
      125, 250, 500,
    ]);
    expect(q.stats()).toMatchObject({ requests: 4, retries: 3, failures: 0 });
  });

  it('retries an idempotent PATCH whose outcome is unknown', async () => {
    const { q, clock } = setup();
    const s = scripted(clock, [serverError()], 'ok');
    await expect(
      drive(clock, q.schedule({ method: 'PATCH', path: '/items/1', idempotent: true }, s.send)),
    ).resolves.toBe('ok');
    expect(s.at).toHaveLength(2);
  });

  it('does not retry a create whose outcome is unknown: the error goes to the caller as is', async () => {
    const { q, clock, events } = setup();
    const err = serverError();
    const s = scripted(clock, [err], 'never');
    await expect(drive(clock, q.schedule(create(), s.send))).rejects.toBe(err);
    expect(s.at).toHaveLength(1);
    expect(q.stats()).toMatchObject({ requests: 1, retries: 0, failures: 1 });
    expect(events.at(-1)).toMatchObject({
      type: 'failed',
      attempts: 1,
      reason: 'outcome unknown on a non-idempotent request',
    });
  });

  it('retries a create that never left (connection refused)', async () => {
    const { q, clock } = setup();
    const s = scripted(
      clock,
      [new FakeApiError('ECONNREFUSED', { retryable: true, outcomeUnknown: false })],
      'created',
    );
    await expect(drive(clock, q.schedule(create(), s.send))).resolves.toBe('created');
    expect(s.at).toHaveLength(2);
  });

  it('treats a 4xx as final, and so anything that is not a marketplace error', async () => {
    const { q, clock } = setup();
    const e422 = refused();
    const s = scripted(clock, [e422], 'x');
    await expect(drive(clock, q.schedule(get(), s.send))).rejects.toBe(e422);
    const bug = new TypeError('undefined is not a function');
    const s2 = scripted(clock, [bug], 'x');
    await expect(drive(clock, q.schedule(get(), s2.send))).rejects.toBe(bug);
    expect(s.at.length + s2.at.length).toBe(2);
    expect(q.stats().failures).toBe(2);
  });

  it('gives up after maxAttempts and throws the last error', async () => {
    const { q, clock, events } = setup({ maxAttempts: 4 });
    const errors = [serverError(1), serverError(2), serverError(3), serverError(4), serverError(5)];
    const last = errors[3];
    const s = scripted(clock, errors, 'x');
    await expect(drive(clock, q.schedule(get(), s.send))).rejects.toBe(last);
    expect(s.at).toHaveLength(4);
    expect(q.stats()).toMatchObject({ requests: 4, retries: 3, failures: 1 });
    expect(events.at(-1)).toMatchObject({
      type: 'failed',
      attempts: 4,
      reason: 'outcome unknown, idempotent; 4 attempts made',
    });
  });

  it('waits at least a Retry-After given with a 503', async () => {
    const { q, clock, t0 } = setup();
    const s = scripted(
      clock,
      [new FakeApiError('503', { retryable: true, outcomeUnknown: false, retryAfterMs: 5000 })],
      'ok',
    );
    await drive(clock, q.schedule(get(), s.send));
    expect(s.at.map((t) => t - t0)).toEqual([0, 5000]);
    expect(q.stats().isPaused).toBe(false); // a 503 delays its own request, it does not pause the queue
  });

  it('on a 429 pauses the whole queue for Retry-After, halves the rate, then resumes', async () => {
    const { q, clock, t0, events } = setup({ ratePerSec: 100, burst: 100 });
    const a = scripted(clock, [tooMany(2000)], 'a');
    const pa = q.schedule(create(), a.send); // a 429 is retried even for a create: it did not happen
    await flush();
    expect(q.stats()).toMatchObject({ isPaused: true, pausedUntil: t0 + 2000, currentRate: 50, rateLimited: 1 });
    const others = Array.from({ length: 3 }, () => scripted(clock, [], 'b'));
    const pb = Promise.all(others.map((o) => q.schedule(get(), o.send)));
    await clock.advance(1999);
    expect(a.at).toHaveLength(1);
    expect(others.every((o) => o.at.length === 0)).toBe(true);
    expect(q.stats().size).toBe(4);
    await drive(clock, Promise.all([pa, pb]));
    expect(await pa).toBe('a');
    // Resumed at t0 + 2000 with one request, then the lowered rate (50/s: every 20 ms).
    const sent = [a.at[1], ...others.map((o) => o.at[0])].map((t) => (t ?? 0) - t0).sort((x, y) => x - y);
    expect(sent).toEqual([2000, 2020, 2040, 2060]);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['rate-limited', 'paused', 'resumed']));
    expect(events.findIndex((e) => e.type === 'paused')).toBeLessThan(events.findIndex((e) => e.type === 'resumed'));
    // The rate climbs back by a tenth of the configured rate per second, to just below where the 429 came.
    await clock.advance(10_000);
    expect(q.stats()).toMatchObject({ isPaused: false, pausedUntil: null, currentRate: 90, holdRate: 90 });
  });

  it('lowers the rate once for the 429s of requests already on the wire', async () => {
    const { q, clock, events } = setup({ ratePerSec: 80, burst: 80, concurrency: 4 });
    const gate = deferred();
    const sends = Array.from({ length: 4 }, () => {
      let first = true;
      return async () => {
        if (first) {
          first = false;
          await gate.promise;
          throw tooMany(1000);
        }
        return 'ok';
      };
    });
    const all = Promise.all(sends.map((send) => q.schedule(get(), send)));
    await flush();
    expect(q.stats().pending).toBe(4);
    gate.resolve();
    await flush();
    expect(q.stats()).toMatchObject({ rateLimited: 4, currentRate: 40, isPaused: true });
    expect(
      events.filter((e) => e.type === 'rate-limited').map((e) => e.type === 'rate-limited' && e.firstOfEpisode),
    ).toEqual([true, false, false, false]);
    expect(events.filter((e) => e.type === 'paused')).toHaveLength(1);
    await drive(clock, all);
    expect(q.stats()).toMatchObject({ requests: 8, retries: 4, failures: 0 });
  });

  it('without Retry-After pauses for the fallback, doubling with consecutive 429s', async () => {
    const { q, clock, t0 } = setup({ rateLimitFallbackMs: 1000 });
    const s = scripted(clock, [tooMany(), tooMany(), tooMany()], 'ok');
    await drive(clock, q.schedule(get(), s.send));
    expect(s.at.map((t) => t - t0)).toEqual([0, 1000, 3000, 7000]);
  });

  it('counts a 429 as an attempt: a server that always refuses ends the request', async () => {
    const { q, clock } = setup({ maxAttempts: 3 });
    const last = tooMany(10);
    const s = scripted(clock, [tooMany(10), tooMany(10), last, tooMany(10)], 'x');
    await expect(drive(clock, q.schedule(get(), s.send))).rejects.toBe(last);
    expect(q.stats()).toMatchObject({ requests: 3, rateLimited: 3, failures: 1 });
  });

  it('clear() drops waiting requests with QueueClearedError; the one on the wire finishes', async () => {
    const { q } = setup({ concurrency: 1 });
    const gate = deferred<string>();
    const onWire = q.schedule(get('/first'), () => gate.promise);
    const sent: string[] = [];
    const waiting = [
      q.schedule(get('/a'), async () => void sent.push('a')),
      q.schedule(get('/b'), async () => void sent.push('b')),
    ];
    await flush();
    q.clear();
    gate.resolve('first');
    await expect(onWire).resolves.toBe('first');
    for (const w of waiting) await expect(w).rejects.toBeInstanceOf(QueueClearedError);
    expect(sent).toEqual([]);
    await q.onIdle();
    // The queue still works afterwards.
    await expect(q.schedule(get(), async () => 'after')).resolves.toBe('after');
  });

  it('clear() also stops a request backing off before its retry', async () => {
    const { q, clock } = setup();
    const s = scripted(clock, [serverError()], 'x');
    const p = q.schedule(get(), s.send);
    await flush();
    expect(clock.sleeping).toBe(1);
    q.clear();
    await expect(p).rejects.toBeInstanceOf(QueueClearedError);
    expect(s.at).toHaveLength(1);
  });

  it('close() is clear() for good: a request asked for afterwards is never sent (a stopping process)', async () => {
    const { q } = setup({ concurrency: 1 });
    const gate = deferred<string>();
    const onWire = q.schedule(get('/first'), () => gate.promise);
    const waiting = q.schedule(get('/a'), async () => 'a');
    await flush();
    q.close();
    const sent: string[] = [];
    const later = q.schedule(get('/page-2'), async () => void sent.push('page-2'));
    gate.resolve('first');
    await expect(onWire).resolves.toBe('first');
    await expect(waiting).rejects.toBeInstanceOf(QueueClearedError);
    await expect(later).rejects.toBeInstanceOf(QueueClearedError);
    expect(sent).toEqual([]);
  });

  it('onIdle waits for requests on the wire and in backoff', async () => {
    const { q, clock } = setup();
    let idle = false;
    const s = scripted(clock, [serverError()], 'x');
    const p = q.schedule(get(), s.send);
    void q.onIdle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(false);
    await drive(clock, p);
    await flush();
    expect(idle).toBe(true);
  });

  it('auto: climbs from the safe start only while requests wait for the rate', async () => {
    const { q, clock } = setup({ ratePerSec: 'auto', startRatePerSec: 5, increasePerSec: 5, burst: 1 });
    await clock.advance(60_000);
    expect(q.stats()).toMatchObject({ currentRate: 5, holdRate: null, advertisedRate: null });
    const all = Promise.all(Array.from({ length: 300 }, () => q.schedule(get(), async () => 'ok')));
    await clock.advance(9000);
    expect(q.stats().currentRate).toBeCloseTo(50, 0);
    await drive(clock, all);
    const reached = q.stats().currentRate;
    await clock.advance(600_000); // idle: no climb
    expect(q.stats().currentRate).toBe(reached);
    // A 429 holds just below the rate it came at.
    await drive(clock, q.schedule(get(), scripted(clock, [tooMany(1000)], 'ok').send));
    expect(q.stats().holdRate).toBeCloseTo(reached * 0.9);
  });

  it('takes the limit an answer advertises at once, under a configured ceiling', async () => {
    const advertised = { rateLimit: { ratePerSec: 50 } };
    const auto = setup({ ratePerSec: 'auto', startRatePerSec: 5 });
    await auto.q.schedule(get(), async () => advertised);
    expect(auto.q.stats()).toMatchObject({ currentRate: 50, advertisedRate: 50 });
    const capped = setup({ ratePerSec: 20 });
    await capped.q.schedule(get(), async () => advertised);
    expect(capped.q.stats()).toMatchObject({ currentRate: 20, advertisedRate: 50 });
    // A refusal carries the advert too.
    const refusedWithAdvert = Object.assign(refused(), { rateLimit: { ratePerSec: 2 } });
    await expect(capped.q.schedule(get(), async () => Promise.reject(refusedWithAdvert))).rejects.toBe(
      refusedWithAdvert,
    );
    expect(capped.q.stats().currentRate).toBe(2);
  });

  it('spends no more than the requests the marketplace says it has left', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 10, burst: 5 });
    const at: number[] = [];
    await q.schedule(get(), async () => ({ rateLimit: { remaining: 0 } }));
    const all = Promise.all(
      Array.from({ length: 3 }, () => q.schedule(get(), async () => void at.push(clock.now() - t0))),
    );
    await drive(clock, all);
    // Without the advert, four tokens were left for these three at once.
    expect(at).toEqual([100, 200, 300]);
  });
});
