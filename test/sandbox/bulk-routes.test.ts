// The sandbox's bulk routes behind their switches: the undocumented ones absent by default, the key named only
// in the 422 that refuses another, the batch limit named in its 422, bulk-remove counting what it archived.
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';

let sb: RunningSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function call(path: string, body: unknown, method = 'POST'): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sb!.url}${path}`, {
    method,
    headers: { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function items(n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await call('/api/v1/items', { external_id: `i${i}`, title: `I${i}`, price: 100 })).body.id);
  return ids;
}

describe('sandbox bulk routes', () => {
  it('absent by default: 404 for item bulk-update, item and top-up bulk-remove', async () => {
    sb = await startSandbox();
    for (const path of ['/api/v1/items/bulk-update', '/api/v1/items/bulk-remove', '/api/v1/top-ups/bulk-remove'])
      expect((await call(path, { ids: [1] })).status).toBe(404);
  });

  it('another key: the documented one refused 422 naming the key, the named one served', async () => {
    sb = await startSandbox({ bulk: { undocumented: true, updateKey: 'items' } });
    const [id] = await items(1);
    const refused = await call('/api/v1/items/bulk-update', { offers: [{ id, price: 5 }] });
    expect(refused).toMatchObject({ status: 422, body: { message: 'The items array is required.' } });
    const served = await call('/api/v1/items/bulk-update', { items: [{ id, external_id: 'i0', price: 5 }] });
    expect(served).toMatchObject({ status: 200, body: { updated: 1, results: [{ id, status: 'updated' }] } });
    // The top-up route reads the same key.
    expect((await call('/api/v1/top-ups/bulk-update', { offers: [{ id: 1 }] })).status).toBe(422);
  });

  it('a batch limit: more is refused 422 naming it; bulk-remove archives and counts', async () => {
    sb = await startSandbox({ bulk: { undocumented: true, limit: 2 } });
    const ids = await items(3);
    const refused = await call('/api/v1/items/bulk-remove', { ids });
    expect(refused).toMatchObject({ status: 422, body: { message: 'The ids array may contain at most 2 elements.' } });
    const removed = await call('/api/v1/items/bulk-remove', { ids: [ids[0], 999] });
    expect(removed.body).toEqual({
      success: true,
      processed: 2,
      removed: 1,
      not_found: 1,
      results: [
        { external_id: 'i0', id: ids[0], status: 'removed' },
        { external_id: null, id: 999, status: 'not_found' },
      ],
    });
    expect(sb.dump().items.map((i) => i.status)).toEqual(['archived', 'draft', 'draft']);
  });
});
