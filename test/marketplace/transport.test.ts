// The transport and the decoders through a real socket, for answers a correct sandbox never gives:
// an HTML page with 200, cut-off JSON, stalls, dropped connections, X-RateLimit-Reset, endless lists.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BadResponseError,
  NetworkError,
  PaginationError,
  RateLimitedError,
  TimeoutError,
} from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient, RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { json, startStub, type StubServer } from './support/stub-server.ts';

const KEY = 'stub-secret-key-0001';
let stub: StubServer;
let client: MarketplaceClient;

beforeAll(async () => {
  stub = await startStub();
  client = createMarketplaceClient({ baseUrl: stub.url, apiKey: KEY, timeoutMs: 500 });
});
afterAll(async () => {
  await client.close();
  await stub.close();
});
afterEach(() => {
  stub.seen.length = 0;
  stub.headers.length = 0;
});

async function all(it: AsyncIterable<{ items: readonly RemoteOffer[] }>): Promise<RemoteOffer[]> {
  const out: RemoteOffer[] = [];
  for await (const p of it) out.push(...p.items);
  return out;
}

const offer = (id: number) => ({ id, external_id: `e-${id}` });

describe('requests', () => {
  it('carry the bearer key, a User-Agent and Accept: application/json', async () => {
    stub.handle((_req, res) => json(res, 200, offer(1)));
    await client.items.get({ id: 1 });
    expect(stub.headers[0]).toMatchObject({ authorization: `Bearer ${KEY}`, accept: 'application/json' });
    expect(stub.headers[0]!['user-agent']).toMatch(/^offersync\/\d/);
  });

  it('send JSON bodies with their content type', async () => {
    let got = '';
    stub.handle((req, res, body) => {
      got = `${req.headers['content-type']} ${body.toString()}`;
      json(res, 201, { data: offer(1) });
    });
    await client.items.create({ external_id: 'e-1', title: 't' });
    expect(got).toBe('application/json {"external_id":"e-1","title":"t"}');
  });
});

describe('a 2xx that is not what was asked for', () => {
  it.each([
    ['an HTML page', 'text/html', '<!doctype html><html><body>Welcome</body></html>'],
    ['cut-off JSON', 'application/json', '{"id": 1, "external_id": "e-'],
    ['JSON without an id', 'application/json', '{"ok": true}'],
    ['an array', 'application/json', '[{"id": 1, "external_id": "e-1"}]'],
    ['nothing', 'application/json', ''],
  ])('%s is a BadResponse carrying status and first bytes', async (_name, type, body) => {
    stub.handle((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
    const err = await client.accounts.create({ external_id: 'e-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err).toMatchObject({
      status: 200,
      method: 'POST',
      path: '/api/v1/accounts',
      outcomeUnknown: true,
      retryable: false,
    });
    if (body !== '') expect((err as BadResponseError).bodySnippet).toBe(body.slice(0, 200));
  });

  it.each([
    ['__proto__', '{"id": 1, "external_id": "e-1", "__proto__": {"status": "archived"}}', '/__proto__'],
    ['constructor, escaped', '{"data": {"id": 1, "external_id": "e-1", "\\u0063onstructor": 1}}', '/data/constructor'],
    [
      'prototype, in a list',
      '{"data": [{"id": 1, "external_id": "e-1", "parameters": {"prototype": 1}}]}',
      '/data/0/parameters/prototype',
    ],
  ])('an answer holding a key that names a prototype (%s) is a BadResponse, never decoded', async (_n, body, at) => {
    stub.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const read = body.includes('[') ? all(client.accounts.list()) : client.accounts.get({ id: 1 });
    const err = await Promise.resolve(read).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect((err as Error).message).toContain(`(at ${at}), which names a JavaScript prototype`);
    expect(Object.hasOwn(Object.prototype, 'status')).toBe(false);
  });

  it('a list page of HTML is an error, never an empty list', async () => {
    stub.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
    });
    await expect(all(client.accounts.list())).rejects.toBeInstanceOf(BadResponseError);
  });

  it('an HTML page at GET /{kind}/{external_id} is not "not found": the list decides', async () => {
    stub.handle((req, res) => {
      if (req.url!.startsWith('/api/v1/accounts/abc')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>spa</html>');
      } else json(res, 200, { data: [offer(9), { id: 10, external_id: 'abc' }], links: { next: null } });
    });
    await expect(client.accounts.findByExternalId('abc')).resolves.toMatchObject({ id: 10, externalId: 'abc' });
  });
});

describe('transport failures', () => {
  it('a stalled answer is a TimeoutError, outcome unknown for a write', async () => {
    stub.handle(() => {
      /* never answers */
    });
    const err = await client.topUps.update({ id: 1 }, { price: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ retryable: true, outcomeUnknown: true, method: 'PATCH', path: '/api/v1/top-ups/1' });
  });

  it('a dropped connection is a NetworkError, outcome unknown for a write', async () => {
    stub.handle((req) => req.socket.destroy());
    const err = await client.items.create({ external_id: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ retryable: true, outcomeUnknown: true });
  });

  it('a refused connection is a NetworkError that sent nothing', async () => {
    const dead = createMarketplaceClient({ baseUrl: 'http://127.0.0.1:1', apiKey: KEY, timeoutMs: 500 });
    const err = await dead.items.create({ external_id: 'x' }).catch((e: unknown) => e);
    await dead.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ retryable: true, outcomeUnknown: false });
  });

  it('reads X-RateLimit-Reset when there is no Retry-After', async () => {
    stub.handle((_req, res) =>
      json(
        res,
        429,
        { message: 'Too Many Attempts.' },
        { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 20) },
      ),
    );
    const err = await client.items.get({ id: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBeGreaterThan(18_000);
    expect((err as RateLimitedError).retryAfterMs).toBeLessThanOrEqual(21_000);
  });

  it('reads a repeated header by its first value, whatever the case of its name', async () => {
    stub.handle((_req, res) => {
      res.writeHead(429, ['RETRY-AFTER', '3', 'Retry-After', '90', 'Content-Type', 'application/json']);
      res.end('{"message":"Too Many Attempts."}');
    });
    const err = await client.items.get({ id: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(3000);
  });

  it('the caller aborting is not a timeout', async () => {
    stub.handle(() => {
      /* never answers */
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await client.items.get({ id: 1 }, { signal: ac.signal }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortedError');
  });
});

describe('pagination guards', () => {
  it('follows a relative links.next and keeps sort and page size it dropped', async () => {
    stub.handle((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? '1');
      json(res, 200, { data: [offer(page)], links: { next: page < 3 ? `/api/v1/items?page=${page + 1}` : null } });
    });
    expect((await all(client.items.list({ sort: '-id', perPage: 1 }))).map((o) => o.id)).toEqual([1, 2, 3]);
    expect(stub.seen[2]).toContain('sort=-id');
    expect(stub.seen[2]).toContain('per_page=1');
  });

  it('keeps an absolute links.next on its own origin', async () => {
    stub.handle((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? '1');
      json(res, 200, {
        data: [offer(page)],
        links: { next: page < 2 ? `https://evil.example/api/v1/items?page=2` : null },
      });
    });
    expect((await all(client.items.list())).map((o) => o.id)).toEqual([1, 2]);
    expect(stub.seen).toHaveLength(2);
  });

  it('refuses a links.next that leaves the collection', async () => {
    stub.handle((_req, res) => json(res, 200, { data: [offer(1)], links: { next: '/api/v1/accounts?page=2' } }));
    await expect(all(client.items.list())).rejects.toBeInstanceOf(PaginationError);
  });

  it('stops with an error when links.next points at the same page', async () => {
    stub.handle((_req, res) =>
      json(res, 200, { data: [offer(1)], links: { next: '/api/v1/items?page=1&sort=id&per_page=100' } }),
    );
    await expect(all(client.items.list({ sort: 'id' }))).rejects.toBeInstanceOf(PaginationError);
    expect(stub.seen.length).toBeLessThanOrEqual(2);
  });

  it('stops with an error when the server ignores the page parameter', async () => {
    stub.handle((_req, res) => json(res, 200, { data: [offer(1), offer(2)] }));
    await expect(all(client.items.list({ perPage: 2 }))).rejects.toBeInstanceOf(PaginationError);
    expect(stub.seen).toHaveLength(2);
  });

  it('stops with an error when meta repeats its page number', async () => {
    let n = 0;
    stub.handle((_req, res) => json(res, 200, { data: [offer(++n)], meta: { current_page: 1, last_page: 5 } }));
    await expect(all(client.items.list())).rejects.toBeInstanceOf(PaginationError);
  });

  it('uses meta.current_page and last_page when there are no links', async () => {
    stub.handle((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page'));
      json(res, 200, { data: [offer(page)], meta: { current_page: page, last_page: 3 } });
    });
    const pages: number[] = [];
    for await (const p of client.items.list()) pages.push(p.page);
    expect(pages).toEqual([1, 2, 3]);
  });

  it('stops on a short page when nothing else says', async () => {
    stub.handle((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page'));
      json(res, 200, { data: page === 1 ? [offer(1), offer(2)] : [offer(3)] });
    });
    expect((await all(client.items.list({ perPage: 2 }))).map((o) => o.id)).toEqual([1, 2, 3]);
  });

  it('gives up at the page cap', async () => {
    const capped = createMarketplaceClient({ baseUrl: stub.url, apiKey: KEY, list: { maxPages: 3 } });
    stub.handle((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page'));
      json(res, 200, { data: [offer(page)], meta: { current_page: page, last_page: 1000 } });
    });
    await expect(all(capped.items.list())).rejects.toBeInstanceOf(PaginationError);
    await capped.close();
    expect(stub.seen).toHaveLength(3);
  });
});

describe('bulk-update outcomes through the wire', () => {
  it('reads per-offer results', async () => {
    stub.handle((_req, res) =>
      json(res, 200, {
        results: [
          { external_id: 'a', success: true },
          { external_id: 'b', success: false, error: 'no' },
        ],
      }),
    );
    const r = await client.topUps.bulkUpdate([{ external_id: 'a' }, { external_id: 'b' }]);
    expect(r.outcomes?.get('b')).toEqual({ ok: false, message: 'no' });
  });
});

describe('close', () => {
  it('can be called twice', async () => {
    const c = createMarketplaceClient({ baseUrl: stub.url, apiKey: KEY });
    await c.close();
    await expect(c.close()).resolves.toBeUndefined();
  });
});
