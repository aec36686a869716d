import { beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from './support.ts';

const { sb, api } = useSandbox();
beforeEach(() => sb().reset());

const item = (n: number, extra: Record<string, unknown> = {}) => ({
  external_id: `item-${n}`,
  title: `Item ${n}`,
  price: 500,
  type: 'currency',
  game: 'league-of-legends',
  server: 'euw',
  stock: 3,
  status: 'listed',
  description: 'secret-ish',
  ...extra,
});
const topUp = (n: number, extra: Record<string, unknown> = {}) => ({
  external_id: `tu-${n}`,
  game: 'valorant',
  offer_amount: 1000,
  offer_unit: 'VP',
  price: 999,
  currency: 'EUR',
  active: true,
  waiting_time_value: 10,
  waiting_time_unit: 'minutes',
  status: 'listed',
  ...extra,
});

describe('items', () => {
  it('creates, gets by id and external_id, lists; description is stored but not echoed', async () => {
    const c = await api('POST', '/api/v1/items', item(1));
    expect(c.status).toBe(200);
    expect(Object.keys(c.body).sort()).toEqual([
      'created_at',
      'external_id',
      'game',
      'id',
      'platform_item_id',
      'price',
      'server',
      'sold_count',
      'status',
      'stock',
      'title',
      'type',
      'updated_at',
    ]);
    expect(c.body).toMatchObject({ id: 1, price: 500, stock: 3, game: 'league-of-legends' });
    expect(sb().dump().items[0]!.description).toBe('secret-ish');
    expect((await api('GET', '/api/v1/items/item-1')).body.id).toBe(1);
    expect((await api('GET', '/api/v1/items/1')).body.external_id).toBe('item-1');
    expect((await api('GET', '/api/v1/items/2')).status).toBe(404);
    expect((await api('GET', '/api/v1/items/item-2')).status).toBe(404);
    expect((await api('GET', '/api/v1/items')).body.data).toHaveLength(1);
    expect((await api('POST', '/api/v1/items', item(1))).status).toBe(409);
  });

  it('422 for missing fields, wrong types and unknown statuses', async () => {
    expect((await api('POST', '/api/v1/items', { title: 'x' })).body.errors).toHaveProperty('external_id');
    for (const [k, v] of [
      ['price', 5.5],
      ['stock', '3'],
      ['status', 'processing'],
      ['type', 3],
    ] as const) {
      const r = await api('POST', '/api/v1/items', item(1, { [k]: v }));
      expect(r.status).toBe(422);
      expect(r.body.message).toContain(k);
    }
  });

  it('PATCH takes only title, price, stock, status, description; any other key is a 422 naming it', async () => {
    await api('POST', '/api/v1/items', item(1));
    const u = await api('PATCH', '/api/v1/items/item-1', {
      title: 'New',
      price: 700,
      stock: 0,
      status: 'archived',
      description: 'd2',
    });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ title: 'New', price: 700, stock: 0, status: 'archived' });
    for (const key of ['game', 'external_id', 'server', 'type', 'bogus']) {
      const r = await api('PATCH', '/api/v1/items/1', { title: 'x', [key]: 'v' });
      expect(r.status).toBe(422);
      expect(r.body.message).toContain(key);
    }
    expect((await api('GET', '/api/v1/items/1')).body.title).toBe('New');
  });

  it('PATCH of a sold item is 409; archive is PATCH status=archived, DELETE is not a route (405)', async () => {
    await api('POST', '/api/v1/items', item(1));
    expect((await api('DELETE', '/api/v1/items/1')).status).toBe(405);
    sb().setStatus('items', 'item-1', 'sold');
    expect((await api('PATCH', '/api/v1/items/1', { price: 1 })).status).toBe(409);
  });
});

describe('top-ups', () => {
  it('creates with only external_id, as draft; echoes every field of 2.6', async () => {
    const r = await api('POST', '/api/v1/top-ups', { external_id: 'tu-0' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('draft');
    expect(r.body).toHaveProperty('waiting_time_unit', null);
    expect((await api('POST', '/api/v1/top-ups', {})).status).toBe(422);
    const full = await api('POST', '/api/v1/top-ups', topUp(1));
    expect(full.body).toMatchObject({
      external_id: 'tu-1',
      offer_amount: 1000,
      active: true,
      waiting_time_unit: 'minutes',
      status: 'listed',
    });
  });

  it('422 for a bad waiting_time_unit, status or active', async () => {
    for (const [k, v] of [
      ['waiting_time_unit', 'weeks'],
      ['status', 'sold'],
      ['active', 'yes'],
      ['price', '9.99'],
    ] as const) {
      const r = await api('POST', '/api/v1/top-ups', topUp(1, { [k]: v }));
      expect(r.status).toBe(422);
      expect(r.body.message).toContain(k);
    }
  });

  it('PATCH changes the status and moves updated_at; 404 for unknown identifiers', async () => {
    const c = await api('POST', '/api/v1/top-ups', topUp(1));
    const u = await api('PATCH', '/api/v1/top-ups/tu-1', { status: 'archived', price: 1200 });
    expect(u.body).toMatchObject({ status: 'archived', price: 1200 });
    expect(u.body.updated_at > c.body.updated_at).toBe(true);
    expect((await api('PATCH', '/api/v1/top-ups/tu-404', { price: 1 })).status).toBe(404);
    expect((await api('PATCH', '/api/v1/top-ups/404', { price: 1 })).status).toBe(404);
  });

  it('bulk-update reports each element: updated, not_found, invalid', async () => {
    await api('POST', '/api/v1/top-ups', topUp(1));
    await api('POST', '/api/v1/top-ups', topUp(2));
    await api('POST', '/api/v1/top-ups', topUp(3));
    sb().setStatus('top-ups', 'tu-3', 'sold');
    const r = await api('POST', '/api/v1/top-ups/bulk-update', {
      offers: [
        { external_id: 'tu-1', price: 111 },
        { id: 2, status: 'archived' },
        { external_id: 'ghost', price: 1 },
        { external_id: 'tu-1', waiting_time_unit: 'weeks' },
        { external_id: 'tu-3', price: 5 },
        { price: 1 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, updated: 2, not_found: 1 });
    expect(r.body.results.map((x: any) => [x.external_id, x.status])).toEqual([
      ['tu-1', 'updated'],
      ['tu-2', 'updated'],
      ['ghost', 'not_found'],
      ['tu-1', 'invalid'],
      ['tu-3', 'invalid'],
      [null, 'invalid'],
    ]);
    expect(r.body.results[3].message).toContain('waiting_time_unit');
    expect(r.body.results[1].id).toBe(2);
    const stored = sb().dump().topUps;
    expect(stored.map((t) => [t.price, t.status])).toEqual([
      [111, 'listed'],
      [999, 'archived'],
      [999, 'sold'],
    ]);
  });

  it('bulk-update refuses a body without an offers array', async () => {
    for (const body of [{}, { offers: [] }, { offers: 'x' }])
      expect((await api('POST', '/api/v1/top-ups/bulk-update', body)).status).toBe(422);
  });
});
