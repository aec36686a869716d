// Sandbox switches of the real marketplace's clocks and database: updated_at an update writes shifted by the
// database's lag (representation.updatedAtLagSec), accounts created with updated_at null
// (representation.accountsNullUpdatedAt), and an update the database refuses answered with PDO's errorInfo
// (faults.errorInfoBodies), and an item PATCH that takes game (representation.itemUpdateTakesGame). Each off by
// default, where the API document's behaviour holds.
import { describe, expect, it } from 'vitest';
import { REAL_SERVER_SWITCHES_CLOCK } from '../../src/sandbox/real-server-switches-clock.ts';
import { account, useSandbox } from './support.ts';

const { sb, api } = useSandbox();
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

const item = (n: number) => ({ external_id: `it-${n}`, title: `Item ${n}`, price: 100, stock: 5, status: 'listed' });

describe('representation.updatedAtLagSec', () => {
  it.each([3600, -3600])('an update (API, sale, status) reads %i s off; a create keeps the true time', async (lag) => {
    sb().reset();
    sb().setRepresentation({ updatedAtLagSec: lag, epochTimestamps: true });
    const before = Math.floor(Date.now() / 1000);
    const created = (await api('POST', '/api/v1/items', item(1))).body;
    expect(created.created_at).toBeGreaterThanOrEqual(before);
    expect(created.updated_at).toBe(created.created_at);
    const patched = (await api('PATCH', '/api/v1/items/1', { title: 'New' })).body;
    expect(patched.updated_at).toBeGreaterThanOrEqual(before - lag);
    expect(patched.updated_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) - lag);
    expect(patched.created_at).toBe(created.created_at);
    // The sandbox's own website controls stamp through the same database.
    await api('POST', '/api/v1/items', item(2));
    sb().sell('items', 'it-2', 1);
    await api('POST', '/api/v1/accounts', account(1));
    sb().setStatus('accounts', 'acc-1', 'sold');
    const sold = (await api('GET', '/api/v1/items/2')).body;
    const acc = (await api('GET', '/api/v1/accounts/1')).body;
    for (const o of [sold, acc]) expect(Math.abs(o.updated_at - (o.created_at - lag))).toBeLessThanOrEqual(2);
  });

  it('is off by default: an update stamps the true time', async () => {
    sb().reset();
    sb().setRepresentation({ epochTimestamps: true });
    await api('POST', '/api/v1/items', item(1));
    const patched = (await api('PATCH', '/api/v1/items/1', { title: 'New' })).body;
    expect(Math.abs(patched.updated_at - Date.now() / 1000)).toBeLessThan(5);
  });

  it('refuses a value that is not a finite number of seconds', () => {
    expect(() => sb().setRepresentation({ updatedAtLagSec: Number.NaN })).toThrow(
      /representation.updatedAtLagSec: expected a finite number of seconds/,
    );
  });
});

describe('representation.accountsNullUpdatedAt', () => {
  it('creates accounts with updated_at null, listed last under -updated_at until first updated', async () => {
    sb().reset();
    sb().setRepresentation({ accountsNullUpdatedAt: true });
    for (const n of [1, 2, 3]) await api('POST', '/api/v1/accounts', account(n));
    expect((await api('GET', '/api/v1/accounts/1')).body.updated_at).toBeNull();
    await api('PATCH', '/api/v1/accounts/1', { title: 'Changed' });
    const listed = (await api('GET', '/api/v1/accounts?sort=-updated_at')).body.data;
    // The updated one first; the never-updated after it, newest create first.
    expect(listed.map((a: { external_id: string }) => a.external_id)).toEqual(['acc-1', 'acc-3', 'acc-2']);
    expect((await api('POST', '/api/v1/items', item(1))).body.updated_at).not.toBeNull();
  });
});

describe('faults.errorInfoBodies', () => {
  it.each([
    ['text into an integer', { stock: 'abc' }, '22007'],
    ['null into stock', { stock: null }, '23000'],
    ['an integer out of range', { stock: 3_000_000_000 }, '22003'],
    ['an array as a value', { title: ['a'] }, 'HY000'],
  ])('a PATCH writing %s: 500 with errorInfo naming table and column', async (_what, change, state) => {
    sb().reset();
    sb().setFaults({ errorInfoBodies: true });
    await api('POST', '/api/v1/items', item(1));
    const res = await api('PATCH', '/api/v1/items/1', change, JSON_ACCEPT);
    expect(res.status).toBe(500);
    expect(res.body.errorInfo[0]).toBe(state);
    expect(res.body.errorInfo[2]).toMatch(/`shop`\.`offers`\.`(stock|title)`|Column 'stock'/);
    expect(sb().dump().items[0]).toMatchObject({ title: 'Item 1', stock: 5 });
  });

  it('the message of the real server, as the document of its facts quotes it', async () => {
    sb().reset();
    sb().setFaults({ errorInfoBodies: true });
    await api('POST', '/api/v1/items', item(1));
    const res = await api('PATCH', '/api/v1/items/1', { stock: 'abc' }, JSON_ACCEPT);
    expect(res.text).toBe(
      '{"errorInfo":["22007",1366,"Incorrect integer value: \'abc\' for column `shop`.`offers`.`stock` at row 1"]}',
    );
  });

  it('without JSON in Accept: an empty 200; a bulk-update keeps the elements before the refused one', async () => {
    sb().reset();
    sb().setFaults({ errorInfoBodies: true });
    for (const n of [1, 2]) await api('POST', '/api/v1/top-ups', { external_id: `t-${n}`, price: 100, stock: 1 });
    const plain = await api('PATCH', '/api/v1/top-ups/1', { stock: 'x' });
    expect([plain.status, plain.text]).toEqual([200, '']);
    const bulk = await api(
      'POST',
      '/api/v1/top-ups/bulk-update',
      {
        offers: [
          { id: 1, stock: 9 },
          { id: 2, stock: 'x' },
        ],
      },
      JSON_ACCEPT,
    );
    expect(bulk.status).toBe(500);
    expect(
      sb()
        .dump()
        .topUps.map((t) => t.stock),
    ).toEqual([9, 1]);
  });

  it('is off by default: the same PATCH is a 422 naming the field', async () => {
    sb().reset();
    await api('POST', '/api/v1/items', item(1));
    const res = await api('PATCH', '/api/v1/items/1', { stock: 'abc' }, JSON_ACCEPT);
    expect(res.status).toBe(422);
    expect(res.body.errors.stock).toBeDefined();
  });
});

describe('representation.itemUpdateTakesGame', () => {
  it("PATCH /items/{id} changes an item's game; bulk-update ignores it", async () => {
    sb().reset();
    sb().setRepresentation({ itemUpdateTakesGame: true });
    sb().setBulk({ undocumented: true });
    await api('POST', '/api/v1/items', { ...item(1), game: 'lol' });
    const patched = await api('PATCH', '/api/v1/items/1', { game: 'valorant' });
    expect([patched.status, patched.body.game]).toEqual([200, 'valorant']);
    const bulk = await api('POST', '/api/v1/items/bulk-update', { offers: [{ id: 1, game: 'cs2', title: 'T' }] });
    expect(bulk.status).toBe(200);
    expect(sb().dump().items[0]).toMatchObject({ game: 'valorant', title: 'T' });
  });

  it("is off by default: the document's five fields only, game refused by name", async () => {
    sb().reset();
    await api('POST', '/api/v1/items', { ...item(1), game: 'lol' });
    const res = await api('PATCH', '/api/v1/items/1', { game: 'valorant' });
    expect(res.status).toBe(422);
    expect(res.body.errors.game).toBeDefined();
  });
});

describe('REAL_SERVER_SWITCHES_CLOCK', () => {
  it('turns on the clock lag of an hour, null account updated_at and errorInfo bodies', () => {
    expect(REAL_SERVER_SWITCHES_CLOCK).toEqual({
      representation: { updatedAtLagSec: 3600, accountsNullUpdatedAt: true, itemUpdateTakesGame: true },
      faults: { errorInfoBodies: true },
    });
  });
});
