import { afterEach, describe, expect, it } from 'vitest';
import { account, useSandbox } from './support.ts';

const { sb, api } = useSandbox();
afterEach(() => sb().reset()); // reset also restores the start representation

describe('representation switches', () => {
  it('default: bare objects, ISO timestamps with microseconds, numbers, 200 on create', async () => {
    const r = await api('POST', '/api/v1/accounts', account(1));
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(1);
    expect(r.body.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('wrapSingle wraps get, create and update in data, not lists', async () => {
    sb().setRepresentation({ wrapSingle: true });
    const c = await api('POST', '/api/v1/accounts', account(1));
    expect(c.body.data.external_id).toBe('acc-1');
    expect((await api('GET', '/api/v1/accounts/1')).body.data.id).toBe(1);
    expect((await api('PATCH', '/api/v1/accounts/1', { title: 't' })).body.data.title).toBe('t');
    const l = await api('GET', '/api/v1/accounts');
    expect(l.body.data[0].id).toBe(1);
  });

  it('epochTimestamps gives integer seconds, sold_at included', async () => {
    sb().setRepresentation({ epochTimestamps: true });
    await api('POST', '/api/v1/accounts', account(1));
    sb().setStatus('accounts', 1, 'sold');
    const r = await api('GET', '/api/v1/accounts/1');
    for (const k of ['created_at', 'updated_at', 'sold_at']) {
      expect(Number.isInteger(r.body[k]), k).toBe(true);
      expect(Math.abs(r.body[k] - Date.now() / 1000)).toBeLessThan(60);
    }
  });

  it('integersAsStrings turns ids, prices and counts into numeric strings', async () => {
    sb().setRepresentation({ integersAsStrings: true });
    const r = await api('POST', '/api/v1/accounts', account(1, { level: 30 }));
    expect(r.body).toMatchObject({ id: '1', price: '1000', level: '30', platform_account_id: '900001' });
    const b = await api('POST', '/api/v1/accounts/bulk-remove', { ids: [1] });
    expect(b.body).toEqual({ success: true, processed: '1', removed: '1', not_found: '0' });
    const i = await api('POST', '/api/v1/items', { external_id: 'i', title: 'I', price: 5, stock: 2 });
    expect(i.body).toMatchObject({ price: '5', stock: '2' });
  });

  it('createStatus201 answers creates with 201', async () => {
    sb().setRepresentation({ createStatus201: true });
    expect((await api('POST', '/api/v1/accounts', account(1))).status).toBe(201);
    expect((await api('POST', '/api/v1/items', { external_id: 'i', title: 'I', price: 5 })).status).toBe(201);
    expect((await api('POST', '/api/v1/top-ups', { external_id: 't' })).status).toBe(201);
    expect((await api('PATCH', '/api/v1/top-ups/t', { price: 5 })).status).toBe(200);
  });

  it('numericIdPathsOnly: an external_id in a path is 404, ids still route', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    sb().setRepresentation({ numericIdPathsOnly: true });
    expect((await api('GET', '/api/v1/accounts/acc-1')).status).toBe(404);
    expect((await api('PATCH', '/api/v1/accounts/acc-1', { title: 'x' })).status).toBe(404);
    expect((await api('GET', '/api/v1/accounts/1')).status).toBe(200);
  });

  it('gameAsObject echoes an item or top-up game as {slug, name}', async () => {
    sb().setRepresentation({ gameAsObject: true });
    const i = await api('POST', '/api/v1/items', { external_id: 'i', title: 'I', price: 5, game: 'league-of-legends' });
    expect(i.body.game).toEqual({ slug: 'league-of-legends', name: 'League Of Legends' });
    const t = await api('POST', '/api/v1/top-ups', { external_id: 't', game: 'valorant', game_name: 'VALORANT' });
    expect(t.body.game).toEqual({ slug: 'valorant', name: 'VALORANT' });
  });

  it('the switches can be set over HTTP and are refused when not booleans', async () => {
    const res = await fetch(`${sb().url}/__sandbox/representation`, {
      method: 'POST',
      body: JSON.stringify({ wrapSingle: true }),
    });
    expect(res.status).toBe(200);
    await api('POST', '/api/v1/accounts', account(1));
    expect((await api('GET', '/api/v1/accounts/1')).body.data.id).toBe(1);
    const bad = await fetch(`${sb().url}/__sandbox/representation`, {
      method: 'POST',
      body: JSON.stringify({ wrapSingle: 'yes' }),
    });
    expect(bad.status).toBe(422);
  });
});
