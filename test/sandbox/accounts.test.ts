import { beforeEach, describe, expect, it } from 'vitest';
import { PNG, account, upload, useSandbox } from './support.ts';

const { sb, api } = useSandbox();
beforeEach(() => sb().reset());

const RESPONSE_FIELDS = [
  'id',
  'external_id',
  'platform_account_id',
  'title',
  'price',
  'status',
  'created_at',
  'updated_at',
  'sold_at',
  'description',
  'current_rank',
  'current_division',
  'current_lp',
  'flex_rank',
  'flex_division',
  'flex_lp',
  'level',
  'blue_essence',
  'game_points',
  'winrate_percent',
  'champion_count',
  'skin_count',
  'image_ids',
  'image_urls',
  'game_data',
];

describe('accounts', () => {
  it('answers 401 with the error object without a key or with a wrong one', async () => {
    for (const key of [null, 'wrong']) {
      const r = await api('GET', '/api/v1/accounts', undefined, { key });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: 'Unauthenticated.' });
    }
    const r = await api('POST', '/api/v1/accounts', account(1), { key: null });
    expect(r.status).toBe(401);
    expect(sb().dump().accounts).toHaveLength(0);
  });

  it('creates with 200 and echoes exactly the response fields of 2.3, never credentials', async () => {
    const r = await api(
      'POST',
      '/api/v1/accounts',
      account(1, { credentials: { login: 'l', password: 'p' }, login: 'top', ign: 'Faker', description: 'd' }),
    );
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([...RESPONSE_FIELDS].sort());
    expect(r.body).toMatchObject({
      id: 1,
      external_id: 'acc-1',
      title: 'Account 1',
      price: 1000,
      status: 'listed',
      sold_at: null,
      description: 'd',
    });
    expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(r.text).not.toMatch(/password|"l"|credentials/);
    const stored = sb().dump().accounts[0]!;
    expect(stored.credentials).toEqual({ login: 'l', password: 'p' }); // the explicit object wins over top-level login
    expect(stored.in_game_name).toBe('Faker');
  });

  it('defaults status to draft', async () => {
    const { external_id, title, price } = account(2);
    const r = await api('POST', '/api/v1/accounts', { external_id, title, price });
    expect(r.body.status).toBe('draft');
  });

  it('gets by id and by external_id; 404 for unknown id and unknown external_id', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    expect((await api('GET', '/api/v1/accounts/1')).body.external_id).toBe('acc-1');
    expect((await api('GET', '/api/v1/accounts/acc-1')).body.id).toBe(1);
    for (const path of ['/api/v1/accounts/999', '/api/v1/accounts/nope']) {
      const r = await api('GET', path);
      expect(r.status).toBe(404);
      expect(typeof r.body.message).toBe('string');
    }
  });

  it('treats an all-digit identifier as an id first, then as an external_id', async () => {
    await api('POST', '/api/v1/accounts', account(1)); // id 1
    await api('POST', '/api/v1/accounts', { ...account(2), external_id: '1' }); // id 2, external_id "1"
    await api('POST', '/api/v1/accounts', { ...account(3), external_id: '777' }); // id 3
    expect((await api('GET', '/api/v1/accounts/1')).body.external_id).toBe('acc-1');
    expect((await api('GET', '/api/v1/accounts/777')).body.id).toBe(3);
  });

  it('refuses a duplicate external_id with 409, archived offers included', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    expect((await api('POST', '/api/v1/accounts', account(1))).status).toBe(409);
    await api('DELETE', '/api/v1/accounts/acc-1');
    const r = await api('POST', '/api/v1/accounts', account(1));
    expect(r.status).toBe(409);
    expect(typeof r.body.message).toBe('string');
  });

  it('422 names each missing required field', async () => {
    const r = await api('POST', '/api/v1/accounts', { description: 'x' });
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/external_id/);
    expect(Object.keys(r.body.errors).sort()).toEqual(['external_id', 'price', 'title']);
  });

  it.each([
    ['title', 5],
    ['external_id', 12],
    ['price', 'abc'],
    ['price', -5],
    ['price', 0],
    ['price', true],
    ['level', '30'],
    ['level', 1.5],
    ['winrate_percent', 101],
    ['rank', 'wood'],
    ['rank', 11],
    ['division', 'V'],
    ['rank', 'gold_5'],
    ['champions', 5],
    ['image_ids', 'a,b'],
    ['image_ids', [{ url: 'x' }]],
    ['credentials', 'secret'],
    ['status', 'sold'],
    ['parameters', [1]],
    ['description', { a: 1 }],
  ])('422 names %s when it is %j', async (field, value) => {
    const r = await api('POST', '/api/v1/accounts', { ...account(1), [field]: value });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain(field);
    expect(r.body.errors[field]).toBeDefined();
    expect(sb().dump().accounts).toHaveLength(0);
  });

  it.each([
    [1999, 1999],
    [19.99, 1999],
    ['19.99', 1999],
    ['19.995', 2000],
    [0.1, 10],
    ['20', 20],
    ['5.5', 550],
  ])('price %j is stored as %d cents', async (price, cents) => {
    const r = await api('POST', '/api/v1/accounts', account(1, { price }));
    expect(r.status).toBe(200);
    expect(r.body.price).toBe(cents);
  });

  it.each([
    [{ rank: 'gold' }, 'gold', null],
    [{ rank: 4 }, 'gold', null],
    [{ rank: '10' }, 'challenger', null],
    [{ rank: 'gold_2' }, 'gold', 'II'],
    [{ rank: 'Gold II' }, 'gold', 'II'],
    [{ rank: 'PLATINUM-iv' }, 'platinum', 'IV'],
    [{ rank: 'diamond 1' }, 'diamond', 'I'],
    [{ rank: 'silver', division: 3 }, 'silver', 'III'],
    [{ rank: 'silver', division: 'iii' }, 'silver', 'III'],
    [{ current_rank: 'Emerald', current_division: '4' }, 'emerald', 'IV'],
    [{ rank: 'gold_2', division: 'I' }, 'gold', 'I'], // the explicit division wins over the combined value
    [{ current_rank: 'iron', rank: 'gold' }, 'iron', null], // current_rank wins over its alias
  ])('rank input %j is stored as %s %s', async (fields, rank, division) => {
    const r = await api('POST', '/api/v1/accounts', account(1, fields));
    expect(r.status).toBe(200);
    expect([r.body.current_rank, r.body.current_division]).toEqual([rank, division]);
  });

  it('maps flex and previous ranks; previous_* are stored, not echoed', async () => {
    const r = await api(
      'POST',
      '/api/v1/accounts',
      account(1, { flex_rank: 'master_1', previous_rank: 2, previous_division: 2 }),
    );
    expect([r.body.flex_rank, r.body.flex_division]).toEqual(['master', 'I']);
    expect(r.body).not.toHaveProperty('previous_rank');
    expect(sb().dump().accounts[0]).toMatchObject({ previous_rank: 'bronze', previous_division: 'II' });
  });

  it('maps parameters (and game_data) into public fields; top-level fields win; echoes them as game_data', async () => {
    const parameters = {
      rank: 'gold_2',
      flex_rank: 'Silver III',
      level: 30,
      blue_essence: 100,
      game_points: 5,
      winrate_percent: 55,
      champion_count: 40,
      skin_count: 9,
      other: 'kept',
    };
    const r = await api('POST', '/api/v1/accounts', account(1, { parameters, level: 31 }));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      current_rank: 'gold',
      current_division: 'II',
      flex_rank: 'silver',
      flex_division: 'III',
      level: 31,
      blue_essence: 100,
      game_points: 5,
      winrate_percent: 55,
      champion_count: 40,
      skin_count: 9,
    });
    expect(r.body.game_data).toEqual(parameters);
    const g = await api('POST', '/api/v1/accounts', account(2, { game_data: { level: 7, rank: 3 } }));
    expect(g.body).toMatchObject({ level: 7, current_rank: 'silver', game_data: { level: 7, rank: 3 } });
    const bad = await api('POST', '/api/v1/accounts', account(3, { parameters: { level: 'high' } }));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('parameters.level');
  });

  it('stores champions, skins and roles from arrays or comma-separated strings, without echoing them', async () => {
    const r = await api(
      'POST',
      '/api/v1/accounts',
      account(1, { champions: 'Ahri, Lux,,Zed', skins: ['A', 'B'], roles: 'mid' }),
    );
    expect(r.body).not.toHaveProperty('champions');
    expect(sb().dump().accounts[0]).toMatchObject({
      champions: ['Ahri', 'Lux', 'Zed'],
      skins: ['A', 'B'],
      roles: ['mid'],
    });
  });

  it('accepts image_ids in all four forms, only for uploaded images', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await upload(sb(), PNG)).body.data.id);
    const forms = [ids, ids.join(','), ids.map((id) => ({ id })), ids.map((image_id) => ({ image_id }))];
    for (const [n, image_ids] of forms.entries()) {
      const r = await api('POST', '/api/v1/accounts', account(n, { image_ids }));
      expect(r.status).toBe(200);
      expect(r.body.image_ids).toEqual(ids);
    }
    const r = await api('POST', '/api/v1/accounts', account(9, { image_ids: [ids[0], 999] }));
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/image.*999/);
  });

  it('updates with PATCH by the same rules, moves updated_at, keeps unnamed credentials', async () => {
    const c = await api('POST', '/api/v1/accounts', account(1, { credentials: { login: 'l', password: 'p' } }));
    const u = await api('PATCH', '/api/v1/accounts/acc-1', {
      price: '12.50',
      rank: 'Diamond-3',
      credentials: { password: 'q' },
    });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ price: 1250, current_rank: 'diamond', current_division: 'III', title: 'Account 1' });
    expect(u.body.updated_at > c.body.updated_at).toBe(true);
    expect(u.body.created_at).toBe(c.body.created_at);
    expect(sb().dump().accounts[0]!.credentials).toEqual({ login: 'l', password: 'q' });
    expect((await api('PATCH', '/api/v1/accounts/acc-1', { price: 'free' })).status).toBe(422);
    expect((await api('PATCH', '/api/v1/accounts/nope', { price: 1 })).status).toBe(404);
  });

  it('refuses to update an offer the marketplace sold, refunded or is processing (409)', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    for (const status of ['sold', 'refunded', 'processing']) {
      sb().setStatus('accounts', 'acc-1', status);
      const r = await api('PATCH', '/api/v1/accounts/1', { title: 'new' });
      expect(r.status).toBe(409);
      expect(r.body.message).toMatch(/sold/);
    }
    expect((await api('GET', '/api/v1/accounts/1')).body.title).toBe('Account 1');
  });

  it('marking sold sets sold_at', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    sb().setStatus('accounts', 1, 'sold');
    const r = await api('GET', '/api/v1/accounts/1');
    expect(r.body.status).toBe('sold');
    expect(r.body.sold_at).toMatch(/Z$/);
  });

  it('DELETE archives (still listed, status archived)', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    const r = await api('DELETE', '/api/v1/accounts/acc-1');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, archived: true });
    expect((await api('GET', '/api/v1/accounts/1')).body.status).toBe('archived');
    expect((await api('GET', '/api/v1/accounts')).body.data.map((a: any) => a.status)).toEqual(['archived']);
    expect((await api('DELETE', '/api/v1/accounts/404')).status).toBe(404);
  });

  it('bulk-remove archives by external_ids and ids and counts processed, removed, not_found', async () => {
    for (let i = 1; i <= 4; i++) await api('POST', '/api/v1/accounts', account(i));
    await api('DELETE', '/api/v1/accounts/acc-4');
    const r = await api('POST', '/api/v1/accounts/bulk-remove', {
      external_ids: ['acc-1', 'acc-4', 'ghost'],
      ids: [2, 99],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, processed: 5, removed: 3, not_found: 2 });
    const statuses = sb()
      .dump()
      .accounts.map((a) => a.status);
    expect(statuses).toEqual(['archived', 'archived', 'listed', 'archived']);
    expect((await api('POST', '/api/v1/accounts/bulk-remove', { ids: [3] })).body).toMatchObject({
      processed: 1,
      removed: 1,
      not_found: 0,
    });
  });

  it('bulk-remove refuses an empty or ill-typed body with 422', async () => {
    for (const body of [{}, { external_ids: [], ids: [] }, { external_ids: 'a' }, { ids: ['1'] }]) {
      const r = await api('POST', '/api/v1/accounts/bulk-remove', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(typeof r.body.message).toBe('string');
    }
  });
});
