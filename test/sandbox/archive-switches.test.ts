// The sandbox's switches for how items and top-ups are archived and how bulk calls fail in part: DELETE absent by
// default (405) and, behind deleteArchives, archiving (listed as archived) or with deleteRemoves forgetting the offer;
// statusArchivedRefused refusing status archived on PATCH and bulk-update; bulk.failEvery leaving elements undone.
import { beforeEach, describe, expect, it } from 'vitest';
import { checkBulk } from '../../src/sandbox/sandbox-options.ts';
import { useSandbox } from './support.ts';

const { sb, api } = useSandbox();
beforeEach(() => sb().reset());

const KINDS = [
  ['items', { title: 'An item', price: 100 }],
  ['top-ups', { offer_title: '10 gems', price: 50 }],
] as const;

async function create(kind: string, externalId: string, fields: Record<string, unknown>): Promise<number> {
  const r = await api('POST', `/api/v1/${kind}`, { external_id: externalId, status: 'listed', ...fields });
  expect(r.status).toBe(200);
  return r.body.id as number;
}

describe.each(KINDS)('%s DELETE', (kind, fields) => {
  it('absent by default: 405 naming the methods served, the offer unchanged', async () => {
    const id = await create(kind, 'x-1', fields);
    const r = await api('DELETE', `/api/v1/${kind}/${id}`);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, PATCH');
    expect((await api('GET', `/api/v1/${kind}/${id}`)).body.status).toBe('listed');
  });

  it('deleteArchives: archived, and listed as archived; twice archives once; 404 unknown, 409 sold', async () => {
    sb().setRepresentation({ deleteArchives: true });
    const id = await create(kind, 'x-1', fields);
    const r = await api('DELETE', `/api/v1/${kind}/${id}`);
    expect(r).toMatchObject({ status: 200, body: { success: true, archived: true } });
    expect((await api('DELETE', `/api/v1/${kind}/${id}`)).status).toBe(200);
    expect((await api('GET', `/api/v1/${kind}`)).body.data.map((o: { status: string }) => o.status)).toEqual([
      'archived',
    ]);
    expect((await api('DELETE', `/api/v1/${kind}/999`)).status).toBe(404);
    const sold = await create(kind, 'x-2', fields);
    sb().setStatus(kind, sold, 'sold');
    expect((await api('DELETE', `/api/v1/${kind}/${sold}`)).status).toBe(409);
  });

  it('deleteRemoves: gone from the list and GET, its external_id free for a create', async () => {
    sb().setRepresentation({ deleteArchives: true, deleteRemoves: true });
    const id = await create(kind, 'x-1', fields);
    expect((await api('DELETE', `/api/v1/${kind}/${id}`)).body).toEqual({ success: true, deleted_id: id });
    expect((await api('GET', `/api/v1/${kind}/${id}`)).status).toBe(404);
    expect((await api('GET', `/api/v1/${kind}`)).body.data).toEqual([]);
    expect(await create(kind, 'x-1', fields)).not.toBe(id);
  });

  it('statusArchivedRefused: PATCH and bulk-update refuse status archived (422), other changes pass', async () => {
    sb().setRepresentation({ statusArchivedRefused: true });
    sb().setBulk({ undocumented: true });
    const id = await create(kind, 'x-1', fields);
    const r = await api('PATCH', `/api/v1/${kind}/${id}`, { status: 'archived' });
    expect(r).toMatchObject({ status: 422, body: { message: 'The selected status is invalid.' } });
    expect((await api('PATCH', `/api/v1/${kind}/${id}`, { status: 'draft' })).status).toBe(200);
    const bulk = await api('POST', `/api/v1/${kind}/bulk-update`, { offers: [{ id, status: 'archived' }] });
    expect(bulk.body.results).toEqual([
      { external_id: 'x-1', id, status: 'invalid', message: 'The selected status is invalid.' },
    ]);
    expect((await api('GET', `/api/v1/${kind}/${id}`)).body.status).toBe('draft');
  });
});

describe('bulk.failEvery', () => {
  it('every n-th element undone: itemised as failed, left out of updated and removed', async () => {
    sb().setBulk({ undocumented: true, failEvery: 2 });
    const ids = [await create('items', 'i-1', KINDS[0][1]), await create('items', 'i-2', KINDS[0][1])];
    const update = await api('POST', '/api/v1/items/bulk-update', { offers: ids.map((id) => ({ id, price: 7 })) });
    expect(update.body).toMatchObject({
      updated: 1,
      results: [{ status: 'updated' }, { id: ids[1], status: 'failed' }],
    });
    expect(update.body.results[1].message).toMatch(/retry/);
    const prices = async () =>
      (await api('GET', '/api/v1/items?sort=id')).body.data.map((o: { price: number }) => o.price);
    expect(await prices()).toEqual([7, 100]);
    const remove = await api('POST', '/api/v1/items/bulk-remove', { ids });
    expect(remove.body).toMatchObject({
      processed: 2,
      removed: 1,
      results: [{ status: 'removed' }, { status: 'failed' }],
    });
    sb().setRepresentation({ bulkCountsOnly: true });
    const counted = await api('POST', '/api/v1/items/bulk-update', { offers: ids.map((id) => ({ id, price: 8 })) });
    expect(counted.body).toEqual({ success: true, updated: 1, not_found: 0, invalid: 0, failed: 1 });
    expect((await api('POST', '/api/v1/items/bulk-remove', { ids })).body).toEqual({
      success: true,
      processed: 2,
      removed: 1,
      not_found: 0,
    });
  });

  it('is checked at start: a positive integer', () => {
    expect(() => checkBulk({ failEvery: 0 })).toThrow(/bulk.failEvery: expected a positive integer/);
  });
});
