// A marketplace that asks for an endless wait (Retry-After: 999999999, an HTTP date in 9999, a reset far in the
// future): the real client over a real socket, its 429s and 503s read by the real queue on the fake clock. The
// queue waits at most maxRetryAfterMs, says once per answer what was asked and what it does, and the request
// goes through afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { FakeClock } from '../../src/queue/fake-clock.ts';
import { RequestQueue } from '../../src/queue/request-queue.ts';
import { captureLog } from '../support/log-capture.ts';
import { json, startStub, type StubServer } from '../marketplace/support/stub-server.ts';

const KEY = 'stub-secret-key-0003';
const CAP_MS = 300_000;
const WARNING = /^the marketplace asked offersync to wait \d+ s; offersync waits 300 s/;

let stub: StubServer;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(() => stub.close());

function setup() {
  const clock = new FakeClock(Date.now());
  const log = captureLog('warn');
  const queue = new RequestQueue({ ratePerSec: 100, burst: 10, clock, random: () => 0.5, logger: log.logger });
  const client: MarketplaceClient = createMarketplaceClient({
    baseUrl: stub.url,
    apiKey: KEY,
    schedule: queue.schedule,
  });
  const warnings = () => log.lines.filter((l) => typeof l.msg === 'string' && WARNING.test(l.msg));
  return { clock, queue, client, warnings };
}

/** Lets the request travel the socket until the queue sleeps on the fake clock (bounded: about 5 s at most). */
async function untilSleeping(clock: FakeClock): Promise<void> {
  for (let i = 0; i < 500 && clock.sleeping === 0; i++) await new Promise((r) => setTimeout(r, 10));
}

/** Answers `first` once, then the offer. */
function failOnceWith(status: number, headers: Record<string, string>): void {
  let failed = false;
  stub.handle((_req, res) => {
    if (failed) return json(res, 200, { id: 1, external_id: 'e-1' });
    failed = true;
    json(res, status, { message: status === 429 ? 'Too Many Attempts.' : 'Service Unavailable' }, headers);
  });
}

describe('a wait the marketplace asks for is capped', () => {
  it.each([
    ['Retry-After: 999999999', 429, { 'retry-after': '999999999' }, 999_999_999],
    ['Retry-After: a date in 9999', 429, { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }, 253_402_300_799],
    [
      'X-RateLimit-Reset far ahead with nothing remaining',
      429,
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '253402300799' },
      253_402_300_799,
    ],
    ['Retry-After: 999999999 on a 503', 503, { 'retry-after': '999999999' }, 999_999_999],
  ])('%s: the queue waits the cap, warns once, then the request goes through', async (_n, status, headers, asked) => {
    const { clock, client, queue, warnings } = setup();
    failOnceWith(status, headers);
    try {
      const got = client.items.get({ id: 1 });
      got.catch(() => undefined);
      await untilSleeping(clock);
      expect(clock.sleeping).toBe(1);
      expect(clock.nextWake()! - clock.now()).toBe(CAP_MS);
      expect(warnings()).toHaveLength(1);
      const w = warnings()[0]!;
      expect(w).toMatchObject({ level: 40, waitMs: CAP_MS, path: '/api/v1/items/1' });
      // Epoch values are read against the real clock: the wait asked for is "about" the date.
      const askedSeconds = asked > 1e10 ? asked - Date.now() / 1000 : asked;
      expect(Number(w.askedMs) / 1000).toBeGreaterThan(askedSeconds - 120);
      await clock.advance(CAP_MS);
      await expect(got).resolves.toMatchObject({ id: 1 });
      expect(warnings()).toHaveLength(1);
      expect(queue.stats()).toMatchObject({ isPaused: false, failures: 0 });
    } finally {
      await client.close();
    }
  });

  it('a wait within the cap is waited as asked, without a warning', async () => {
    const { clock, client, warnings } = setup();
    failOnceWith(429, { 'retry-after': '120' });
    try {
      const got = client.items.get({ id: 1 });
      got.catch(() => undefined);
      await untilSleeping(clock);
      expect(clock.nextWake()! - clock.now()).toBe(120_000);
      await clock.advance(120_000);
      await expect(got).resolves.toMatchObject({ id: 1 });
      expect(warnings()).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it('an advertised limit of one request a year is read as one per cap, said once', async () => {
    const { clock, client, queue, warnings } = setup();
    const slow = captureLog('warn');
    const q = new RequestQueue({ ratePerSec: 'auto', burst: 1, clock, logger: slow.logger });
    const c = createMarketplaceClient({ baseUrl: stub.url, apiKey: KEY, schedule: q.schedule });
    stub.handle((_req, res) =>
      json(res, 200, { id: 1, external_id: 'e-1' }, { 'ratelimit-policy': '"year";q=1;w=31536000' }),
    );
    try {
      await c.items.get({ id: 1 });
      expect(q.stats().advertisedRate).toBeCloseTo(1000 / CAP_MS, 9);
      const second = c.items.get({ id: 1 });
      second.catch(() => undefined);
      await untilSleeping(clock);
      expect(clock.nextWake()! - clock.now()).toBeLessThanOrEqual(CAP_MS);
      await clock.advance(CAP_MS);
      await expect(second).resolves.toMatchObject({ id: 1 });
      expect(slow.lines.filter((l) => String(l.msg).startsWith('the marketplace advertises'))).toHaveLength(1);
      expect(warnings()).toHaveLength(0);
      expect(queue.stats().failures).toBe(0);
    } finally {
      await c.close();
      await client.close();
    }
  });
});
