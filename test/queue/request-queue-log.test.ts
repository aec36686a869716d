// What the queue's log tells an operator following a run: retries, 429 pauses and resumes, adverts, give-ups.
import { describe, expect, it } from 'vitest';
import { flush } from '../../src/queue/fake-clock.ts';
import { captureLog } from '../support/log-capture.ts';
import { drive, get, refused, scripted, serverError, setup, tooMany } from './request-queue-harness.ts';

describe('RequestQueue log', () => {
  it('logs a 429 pause with its length, the resume with its rate, each line as the request queue', async () => {
    const log = captureLog();
    const { q, clock } = setup({ ratePerSec: 100, burst: 100, logger: log.logger });
    const p = q.schedule(get('/offers'), scripted(clock, [tooMany(2000)], 'ok').send);
    await flush();
    expect(log.find('rate limited: request queue paused')).toEqual([
      expect.objectContaining({
        level: 40,
        method: 'GET',
        path: '/offers',
        pauseMs: 2000,
        rate: 50,
        retryAfterMs: 2000,
      }),
    ]);
    await drive(clock, p);
    expect(log.find('request queue resumed')).toEqual([expect.objectContaining({ level: 30, rate: 50 })]);
    expect(log.lines.length).toBeGreaterThan(0);
    for (const line of log.lines) expect(line.component).toBe('request-queue');
  });

  it('logs each retry at debug with its delay and reason, and a request that gave up', async () => {
    const log = captureLog();
    const { q, clock } = setup({ logger: log.logger });
    const err = refused();
    await expect(drive(clock, q.schedule(get('/items'), scripted(clock, [serverError(), err], 'x').send))).rejects.toBe(
      err,
    );
    expect(log.find('retrying request')).toEqual([
      expect.objectContaining({
        level: 20,
        method: 'GET',
        path: '/items',
        attempt: 1,
        delayMs: 125,
        reason: 'outcome unknown, idempotent',
      }),
    ]);
    expect(log.find('request failed')).toEqual([
      expect.objectContaining({ level: 20, method: 'GET', path: '/items', attempts: 2, reason: 'not retryable' }),
    ]);
    expect(log.find('request failed')[0]?.err).toMatchObject({ message: '422' });
  });

  it('logs an advertised limit once, with the rate taken', async () => {
    const log = captureLog();
    const { q } = setup({ ratePerSec: 20, logger: log.logger });
    for (let i = 0; i < 3; i++) await q.schedule(get(), async () => ({ rateLimit: { ratePerSec: 50 } }));
    expect(log.find('the marketplace advertises its rate limit')).toEqual([
      expect.objectContaining({ level: 30, advertised: 50, rate: 20 }),
    ]);
  });

  it('warns of a wait asked beyond maxRetryAfterMs, naming the setting; exactly that much is no news', async () => {
    const log = captureLog('warn');
    const { q, clock } = setup({ ratePerSec: 100, burst: 100, maxRetryAfterMs: 2000, logger: log.logger });
    await drive(clock, q.schedule(get('/a'), scripted(clock, [tooMany(2000)], 'ok').send));
    expect(log.lines.filter((l) => String(l.msg).startsWith('the marketplace asked'))).toEqual([]);
    await drive(clock, q.schedule(get('/b'), scripted(clock, [tooMany(7000)], 'ok').send));
    expect(log.lines.filter((l) => String(l.msg).startsWith('the marketplace asked'))).toEqual([
      expect.objectContaining({
        level: 40,
        path: '/b',
        askedMs: 7000,
        waitMs: 2000,
        msg:
          'the marketplace asked offersync to wait 7 s; offersync waits 2 s ' +
          '(the most rateLimit.maxRetryAfterSeconds allows)',
      }),
    ]);
  });

  it('warns once, at the first answer advertising under a request per maxRetryAfterMs; never if usable', async () => {
    const log = captureLog('warn');
    const { q } = setup({ ratePerSec: 'auto', burst: 10, maxRetryAfterMs: 1000, logger: log.logger });
    const advertising = (ratePerSec: number) => async () => ({ rateLimit: { ratePerSec } });
    // One request per maxRetryAfterMs exactly, then faster: both usable as they are.
    await q.schedule(get(), advertising(1));
    await q.schedule(get(), advertising(50));
    expect(log.lines).toEqual([]);
    await q.schedule(get(), advertising(0.001));
    expect(log.lines).toHaveLength(1); // at the first answer that says so
    await q.schedule(get(), advertising(0.001));
    expect(log.lines).toEqual([
      expect.objectContaining({
        level: 40,
        advertised: 0.001,
        rate: 1,
        msg:
          'the marketplace advertises 0.001 requests/s; offersync sends one request every 1 s at the slowest ' +
          '(rateLimit.maxRetryAfterSeconds)',
      }),
    ]);
    expect(q.stats().advertisedRate).toBe(1);
  });
});
