import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { PNG, account, upload, useSandbox } from './support.ts';

const { sb, api } = useSandbox();
beforeEach(() => sb().reset());

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${sb().url}/__sandbox/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('control routes', () => {
  it('counts API requests per route and status, writes included, control routes not', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    await api('POST', '/api/v1/accounts', account(1));
    await api('GET', '/api/v1/accounts/1');
    await api('GET', '/api/v1/accounts/acc-1', undefined, { key: null });
    await api('PATCH', '/api/v1/accounts/1', { title: 'x' });
    await control('GET', 'dump');
    const c = (await control('GET', 'counters')).body;
    expect(c).toEqual({
      total: 5,
      writes: 2,
      rateLimited: 0,
      byRoute: {
        'POST /api/v1/accounts': { '200': 1, '409': 1 },
        'GET /api/v1/accounts/{identifier}': { '200': 1, '401': 1 },
        'PATCH /api/v1/accounts/{identifier}': { '200': 1 },
      },
    });
    expect(sb().counters()).toEqual(c);
    await control('POST', 'reset-counters');
    expect(sb().counters().total).toBe(0);
    expect(sb().dump().accounts).toHaveLength(1);
  });

  it('marks an offer sold over HTTP; 404 for an unknown one, 422 for a bad kind or status', async () => {
    await api('POST', '/api/v1/items', { external_id: 'i1', title: 'I', price: 5 });
    expect((await control('POST', 'status', { kind: 'items', identifier: 'i1', status: 'sold' })).status).toBe(200);
    expect(sb().dump().items[0]).toMatchObject({ status: 'sold' });
    expect(sb().dump().items[0]!.sold_at).toMatch(/Z$/);
    expect((await control('POST', 'status', { kind: 'items', identifier: 'nope', status: 'sold' })).status).toBe(404);
    expect((await control('POST', 'status', { kind: 'cars', identifier: 'i1', status: 'sold' })).status).toBe(422);
    expect((await control('POST', 'status', { kind: 'items', identifier: 'i1', status: 'gone' })).status).toBe(422);
    expect(() => sb().setStatus('accounts', 5, 'sold')).toThrow(/not found/);
  });

  it('sells units: sold_count rises, stock falls unless kept apart; refuses what it cannot', async () => {
    await api('POST', '/api/v1/items', { external_id: 'i1', title: 'I', price: 5, stock: 5, status: 'listed' });
    const sell = (body: unknown) => control('POST', 'sell', body);
    expect(await sell({ kind: 'items', identifier: 'i1', quantity: 2 })).toEqual({
      status: 200,
      body: { success: true, sold_count: 2, stock: 3 },
    });
    expect((await api('GET', '/api/v1/items/i1')).body).toMatchObject({ stock: 3, sold_count: 2 });
    expect((await sell({ kind: 'items', identifier: 'i1', quantity: 1, keepStock: true })).body).toMatchObject({
      sold_count: 3,
      stock: 3,
    });
    sb().setRepresentation({ saleKeepsStock: true });
    expect(sb().sell('items', 'i1', 1)).toEqual({ soldCount: 4, stock: 3 });
    sb().setRepresentation({ integersAsStrings: true });
    expect((await api('GET', '/api/v1/items/i1')).body).toMatchObject({ sold_count: '4', stock: '3' });
    expect((await sell({ kind: 'items', identifier: 'i1', quantity: 9 })).status).toBe(422);
    expect((await sell({ kind: 'items', identifier: 'i1', quantity: 0 })).status).toBe(422);
    expect((await sell({ kind: 'accounts', identifier: 'i1', quantity: 1 })).status).toBe(422);
    expect((await sell({ kind: 'items', identifier: 'nope', quantity: 1 })).status).toBe(404);
    expect((await sell({ kind: 'items', identifier: 'i1' })).status).toBe(422);
  });

  it('sets faults and the rate limit over HTTP and resets everything', async () => {
    expect((await control('POST', 'faults', { errorRate: 1, seed: 1 })).status).toBe(200);
    expect((await api('GET', '/api/v1/accounts')).status).toBeGreaterThanOrEqual(500);
    expect((await control('POST', 'faults', { errorRate: 2 })).status).toBe(422);
    expect((await control('POST', 'faults', { disabled: ['items.delete'] })).status).toBe(422);
    await control('POST', 'faults', {});
    expect((await control('POST', 'rate-limit', { ratePerSec: 1, burst: 1 })).status).toBe(200);
    await api('GET', '/api/v1/accounts');
    expect((await api('GET', '/api/v1/accounts')).status).toBe(429);
    expect((await control('POST', 'rate-limit', null)).status).toBe(200);
    expect((await api('GET', '/api/v1/accounts')).status).toBe(200);
    await api('POST', '/api/v1/accounts', account(1));
    await control('POST', 'faults', { errorRate: 1 });
    expect((await control('POST', 'reset')).status).toBe(200);
    expect((await control('GET', 'dump')).body).toEqual({ accounts: [], items: [], topUps: [], images: [] });
    expect(sb().counters().total).toBe(0);
    expect((await api('GET', '/api/v1/accounts')).status).toBe(200); // faults back to the start options
    expect((await control('GET', 'nothing')).status).toBe(404);
  });

  it('dump has every kind in id order, archived included, with credentials', async () => {
    await api('POST', '/api/v1/accounts', account(2, { credentials: { login: 'u', email_login: 'e' } }));
    await api('POST', '/api/v1/accounts', account(1));
    await api('DELETE', '/api/v1/accounts/1');
    await api('POST', '/api/v1/top-ups', { external_id: 't' });
    await upload(sb(), PNG);
    const d = (await control('GET', 'dump')).body;
    expect(d.accounts.map((a: any) => [a.id, a.status])).toEqual([
      [1, 'archived'],
      [2, 'listed'],
    ]);
    expect(d.accounts[0].credentials).toEqual({ login: 'u', email_login: 'e' });
    expect(d.topUps).toHaveLength(1);
    expect(d.images[0]).toMatchObject({ id: 1, mime_type: 'image/png', size_bytes: PNG.length });
  });
});

describe('persistence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-persist-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the store across a restart, ids and external_id uniqueness included', async () => {
    const file = join(dir, 'store.json');
    const h = { authorization: 'Bearer k', 'content-type': 'application/json' };
    const first = await startSandbox({ apiKeys: ['k'], persistFile: file });
    try {
      await fetch(`${first.url}/api/v1/accounts`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify(account(1, { credentials: { password: 'p' } })),
      });
      await fetch(`${first.url}/api/v1/items`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ external_id: 'i', title: 'I', price: 3 }),
      });
      first.setStatus('items', 'i', 'sold');
    } finally {
      await first.close();
    }
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
    const second = await startSandbox({ apiKeys: ['k'], persistFile: file });
    try {
      const before = first.dump();
      expect(second.dump()).toEqual(before);
      const dup = await fetch(`${second.url}/api/v1/accounts`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify(account(1)),
      });
      expect(dup.status).toBe(409);
      const next = await fetch(`${second.url}/api/v1/accounts`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify(account(2)),
      });
      const created = (await next.json()) as any;
      expect(created.id).toBe(2);
      expect(created.updated_at > (before.accounts[0]!.updated_at as string)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('refuses to start on a file that is not a sandbox store', async () => {
    const file = join(dir, 'bad.json');
    (await import('node:fs')).writeFileSync(file, '{"hello": 1}');
    await expect(startSandbox({ persistFile: file })).rejects.toThrow(/bad\.json/);
  });
});

describe('sellerPerKey', () => {
  it('keeps each key its own offers, as separate seller accounts; dump shows them all', async () => {
    const sb = await startSandbox({ apiKeys: ['k-a', 'k-b'], sellerPerKey: true });
    try {
      const post = (key: string, externalId: string) =>
        fetch(`${sb.url}/api/v1/items`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ external_id: externalId, title: 'x', price: 1, stock: 1, type: 'skin' }),
        });
      expect((await post('k-a', 'same')).status).toBeLessThan(300);
      // The same external_id under another seller is no conflict.
      expect((await post('k-b', 'same')).status).toBeLessThan(300);
      const list = async (key: string) =>
        (
          (await (await fetch(`${sb.url}/api/v1/items`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
            data: unknown[];
          }
        ).data;
      expect(await list('k-a')).toHaveLength(1);
      expect(await list('k-b')).toHaveLength(1);
      expect(sb.dump().items).toHaveLength(2);
    } finally {
      await sb.close();
    }
  });
});

describe('control routes beyond loopback', () => {
  it('need the API key: the dump holds stored credentials', async () => {
    const sb = await startSandbox({ host: '0.0.0.0', port: 0, apiKeys: ['wide-key'] });
    try {
      const base = `http://127.0.0.1:${sb.port}/__sandbox`;
      await fetch(`http://127.0.0.1:${sb.port}/api/v1/accounts`, {
        method: 'POST',
        headers: { authorization: 'Bearer wide-key', 'content-type': 'application/json' },
        body: JSON.stringify(account(1)),
      });
      for (const [method, path] of [
        ['GET', 'dump'],
        ['GET', 'counters'],
        ['POST', 'reset'],
        ['POST', 'faults'],
      ] as const) {
        const res = await fetch(`${base}/${path}`, { method });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(((await res.json()) as { message: string }).message).toMatch(/beyond loopback.*API key/);
      }
      expect(sb.dump().accounts).toHaveLength(1); // the refused reset changed nothing
      const wrong = await fetch(`${base}/dump`, { headers: { authorization: 'Bearer not-the-key' } });
      expect(wrong.status).toBe(401);
      const dump = await fetch(`${base}/dump`, { headers: { authorization: 'Bearer wide-key' } });
      expect(dump.status).toBe(200);
      expect(((await dump.json()) as { accounts: unknown[] }).accounts).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });

  it('on loopback they need none', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const sb = await startSandbox({ host, port: 0, apiKeys: ['loop-key'] });
      try {
        expect((await fetch(`http://${host}:${sb.port}/__sandbox/dump`)).status, host).toBe(200);
      } finally {
        await sb.close();
      }
    }
  });
});
