// clear(), onIdle() and the counts of waiting requests: what a stopping run relies on to leave nothing behind.
import { describe, expect, it } from 'vitest';
import { FakeClock, flush } from '../../src/queue/fake-clock.ts';
import { QueueClearedError } from '../../src/queue/queue-cleared-error.ts';
import { RequestQueue } from '../../src/queue/request-queue.ts';
import { deferred, drive, get, scripted, serverError, setup, tooMany, track } from './request-queue-harness.ts';

describe('RequestQueue clear', () => {
  it('clear() while a request holds its slot waiting for a token: it rejects and the slot is free again', async () => {
    const { q, clock, t0 } = setup({ ratePerSec: 1, burst: 1, concurrency: 1 });
    await q.schedule(get('/first'), async () => 'first');
    const waiting = track(q.schedule(get('/second'), async () => 'second'));
    await flush();
    expect(clock.sleeping).toBe(1); // the second waits for the token, holding the only slot
    q.clear();
    await flush();
    expect(waiting.state).toBe('rejected');
    expect(waiting.value).toBeInstanceOf(QueueClearedError);
    expect(q.stats().size).toBe(0);
    const sent: number[] = [];
    const third = track(q.schedule(get('/third'), async () => void sent.push(clock.now() - t0)));
    await clock.runAll();
    expect(third.state).toBe('resolved');
    expect(sent).toEqual([1000]);
  });

  it('clear() during a 429 pause drops the paused requests and frees their slots', async () => {
    const { q, clock } = setup({ concurrency: 2 });
    const limited = track(q.schedule(get('/a'), scripted(clock, [tooMany(5000)], 'a').send));
    await flush();
    const paused = track(q.schedule(get('/b'), async () => 'b'));
    await flush();
    expect(q.stats()).toMatchObject({ isPaused: true, size: 2, pending: 0 });
    q.clear();
    await flush();
    expect([limited.state, paused.state]).toEqual(['rejected', 'rejected']);
    expect(q.stats()).toMatchObject({ size: 0, pending: 0 });
    // Both slots are free: two requests go on the wire together once the pause is over.
    const gate = deferred();
    let onWire = 0;
    const after = [1, 2].map(() =>
      track(
        q.schedule(get(), async () => {
          onWire++;
          await gate.promise;
        }),
      ),
    );
    await clock.advance(5010); // the pause, then one request and the rate: the second token comes 1 ms later
    expect(onWire).toBe(2);
    gate.resolve();
    await flush();
    expect(after.map((a) => a.state)).toEqual(['resolved', 'resolved']);
  });

  it('counts no request as waiting once clear() dropped those queued and those backing off', async () => {
    const { q, clock } = setup({ concurrency: 1 });
    const backingOff = q.schedule(get('/c'), scripted(clock, [serverError()], 'c').send);
    await flush(); // '/c' failed and sleeps before its retry, holding no slot
    expect(clock.sleeping).toBe(1);
    const gate = deferred();
    const onWire = q.schedule(get('/first'), () => gate.promise);
    const queued = [q.schedule(get('/a'), async () => 'a'), q.schedule(get('/b'), async () => 'b')];
    for (const p of [...queued, backingOff]) p.catch(() => undefined);
    await flush();
    expect(q.stats()).toMatchObject({ size: 3, pending: 1 });
    q.clear();
    gate.resolve();
    await onWire;
    for (const p of [...queued, backingOff]) await expect(p).rejects.toBeInstanceOf(QueueClearedError);
    expect(q.stats()).toMatchObject({ size: 0, pending: 0 });
  });

  it('a request on the wire when clear() ran is not retried: its own error reaches the caller', async () => {
    const { q, clock, events } = setup();
    const gate = deferred();
    const err = serverError(1);
    let attempts = 0;
    const p = q.schedule(get('/on-wire'), async () => {
      attempts++;
      await gate.promise;
      throw err;
    });
    await flush();
    q.clear();
    gate.resolve();
    await expect(drive(clock, p)).rejects.toBe(err);
    expect(attempts).toBe(1);
    expect(q.stats()).toMatchObject({ requests: 1, retries: 0, failures: 1, size: 0 });
    expect(events.at(-1)).toEqual({
      type: 'failed',
      method: 'GET',
      path: '/on-wire',
      attempts: 1,
      reason: 'queue cleared',
    });
  });

  it('onIdle waits for the last request, not the first to finish', async () => {
    const { q } = setup();
    const first = deferred();
    const second = deferred();
    const a = q.schedule(get('/a'), () => first.promise);
    const b = q.schedule(get('/b'), () => second.promise);
    const idle = track(q.onIdle());
    first.resolve();
    await a;
    await flush();
    expect(idle.state).toBe('pending');
    second.resolve();
    await b;
    await flush();
    expect(idle.state).toBe('resolved');
  });
});

describe('RequestQueue events', () => {
  it("reports every attempt as a 'request' event, then the retry and its reason", async () => {
    const { q, clock, events } = setup();
    await drive(clock, q.schedule(get('/items'), scripted(clock, [serverError()], 'ok').send));
    expect(events).toEqual([
      { type: 'request', method: 'GET', path: '/items', attempt: 1 },
      { type: 'retry', method: 'GET', path: '/items', attempt: 1, delayMs: 125, reason: 'outcome unknown, idempotent' },
      { type: 'request', method: 'GET', path: '/items', attempt: 2 },
    ]);
  });

  it('works without an onEvent listener, through a retry and a failure', async () => {
    const clock = new FakeClock();
    const q = new RequestQueue({ ratePerSec: 1000, clock, random: () => 0.5, maxAttempts: 2 });
    await expect(drive(clock, q.schedule(get(), scripted(clock, [serverError()], 'ok').send))).resolves.toBe('ok');
    const last = serverError(2);
    await expect(drive(clock, q.schedule(get(), scripted(clock, [serverError(1), last], 'x').send))).rejects.toBe(last);
    expect(q.stats()).toMatchObject({ requests: 4, retries: 2, failures: 1 });
  });
});
