// The sandbox's real-server switches of top-up names and bulk routes: representation.realTopUpNames,
// bulk.resolveExternalIdFirst and bulk.realAnswers, each against the document's behaviour it replaces.
import { afterEach, describe, expect, it } from 'vitest';
import { REAL_SERVER_SWITCHES_BULK } from '../../src/sandbox/real-server-bulk.ts';
import { resolveOptions } from '../../src/sandbox/sandbox-options.ts';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/sandbox-server.ts';

let sb: RunningSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sb!.url}/api/v1${path}`, {
    method,
    headers: { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

const start = async (o: SandboxOptions) => {
  sb = await startSandbox(o);
};
const topUp = (external_id: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/top-ups', { external_id, game: 'genshin-impact', status: 'listed', price: 500, ...extra });

describe('representation.realTopUpNames', () => {
  it('off: the document names are echoed and read, the real ones ignored', async () => {
    await start({});
    const t = await topUp('t1', { offer_title: 'Gems', offer_amount: 60, title: 'Other' });
    expect(t.body).toMatchObject({ offer_title: 'Gems', offer_amount: 60, active: null });
    expect(t.body).not.toHaveProperty('title');
  });

  it('on: title, amount (a float with a fraction), unit and image_url, no active, game_name of the slug', async () => {
    await start({ representation: { realTopUpNames: true } });
    const t = await topUp('t1', { title: 'Gems', amount: 12.5, offer_unit: 'gems', image: 'https://x/i.png' });
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({
      title: 'Gems',
      amount: 12.5,
      unit: 'gems',
      image_url: 'https://x/i.png',
      game_name: 'Genshin Impact',
    });
    for (const documented of ['offer_title', 'offer_amount', 'offer_unit', 'image', 'active'])
      expect(t.body).not.toHaveProperty(documented);
    const patched = await call('PATCH', `/top-ups/${t.body.id}`, { offer_title: 'Crystals', amount: 1000 });
    expect(patched.body).toMatchObject({ title: 'Crystals', amount: 1000 });
    expect(JSON.stringify(patched.body)).toContain('"amount":1000,');
  });

  it('on: bulk-update reads topups or top_ups, its nine keys only, and ignores the rest with a 200', async () => {
    await start({ representation: { realTopUpNames: true } });
    const t = await topUp('t1', { title: 'Gems', amount: 60, unit: 'gems', stock: 1 });
    const offers = await call('POST', '/top-ups/bulk-update', { offers: [{ id: t.body.id, price: 600 }] });
    expect(offers).toMatchObject({ status: 422, body: { message: 'topups array is required.' } });
    const el = { id: t.body.id, title: 'More gems', amount: 120, unit: 'crystals', offer_title: 'x', stock: 4 };
    expect((await call('POST', '/top-ups/bulk-update', { topups: [el] })).status).toBe(200);
    expect((await call('GET', `/top-ups/${t.body.id}`)).body).toMatchObject({
      title: 'More gems',
      amount: 120,
      unit: 'gems',
      stock: 4,
    });
    expect((await call('POST', '/top-ups/bulk-update', { top_ups: [{ id: t.body.id, stock: 5 }] })).status).toBe(200);
    sb!.setBulk({ updateKey: 'items' }); // the items' key: the top-ups keep theirs
    expect((await call('POST', '/top-ups/bulk-update', { topups: [{ id: t.body.id, stock: 6 }] })).status).toBe(200);
    const many = Array.from({ length: 101 }, () => ({ id: t.body.id, stock: 1 }));
    expect((await call('POST', '/top-ups/bulk-update', { topups: many })).status).toBe(422);
  });
});

describe('bulk.resolveExternalIdFirst', () => {
  /** A hand-made item (id 1) and a catalogue item whose external_id is "1" (id 2). */
  async function twoItems(): Promise<void> {
    await call('POST', '/items', { external_id: 'web-made', title: 'Hand made', price: 100, status: 'listed' });
    await call('POST', '/items', { external_id: '1', title: 'Catalogue', price: 100, status: 'listed' });
  }
  const price = async (id: number) => (await call('GET', `/items/${id}`)).body.price;

  it('off: an element with an id is found by its id', async () => {
    await start({ bulk: { undocumented: true } });
    await twoItems();
    await call('POST', '/items/bulk-update', { offers: [{ id: 2, external_id: '1', price: 700 }] });
    expect([await price(1), await price(2)]).toEqual([100, 700]);
  });

  it('on: a numeric external_id is read as the internal id, and the answer names the offer it reached', async () => {
    await start({ bulk: { undocumented: true, resolveExternalIdFirst: true } });
    await twoItems();
    const r = await call('POST', '/items/bulk-update', { offers: [{ id: 2, external_id: '1', price: 700 }] });
    expect([await price(1), await price(2)]).toEqual([700, 100]);
    expect(r.body.results[0]).toMatchObject({ id: 1, external_id: 'web-made', status: 'updated' });
    const removed = await call('POST', '/items/bulk-remove', { external_ids: ['1'] });
    expect(removed.body.results[0]).toMatchObject({ id: 1, status: 'removed' });
    expect((await call('GET', '/items/1')).body.status).toBe('archived');
    expect((await call('GET', '/items/2')).body.status).toBe('listed');
  });
});

describe('bulk.realAnswers', () => {
  it('bulk-update: message and data with counts, updated[] the rows as stored, not_found[] as sent', async () => {
    await start({ representation: { realTopUpNames: true }, bulk: { realAnswers: true } });
    const t = await topUp('t1', { title: 'Gems', unit: 'gems' });
    const r = await call('POST', '/top-ups/bulk-update', {
      topups: [{ id: t.body.id, price: 900, unit: 'ignored' }, { id: 999 }],
    });
    expect(r.body).toMatchObject({
      message: 'Bulk update completed.',
      data: { updated_count: 1, not_found_count: 1, not_found: [999] },
    });
    expect(r.body.data.updated[0]).toMatchObject({ id: t.body.id, external_id: 't1', price: 900, unit: 'gems' });
  });

  it('bulk-remove: archived[] the rows, not_found by kind of identifier; accounts list sold ones apart', async () => {
    await start({ bulk: { undocumented: true, realAnswers: true, resolveExternalIdFirst: true } });
    const t = await topUp('t1');
    const r = await call('POST', '/top-ups/bulk-remove', { ids: [t.body.id, 77], external_ids: ['gone'] });
    expect(r.body).toMatchObject({
      message: 'Bulk remove completed.',
      data: { archived_count: 1, not_found_count: 2, not_found: { external_ids: ['gone'], ids: [77] } },
    });
    expect(r.body.data.archived[0]).toMatchObject({ id: t.body.id, status: 'archived' });
    const a = await call('POST', '/accounts', { external_id: 'a1', title: 'A', price: 1000, status: 'listed' });
    const b = await call('POST', '/accounts', { external_id: 'a2', title: 'B', price: 1000, status: 'listed' });
    sb!.setStatus('accounts', b.body.id, 'sold');
    const acc = await call('POST', '/accounts/bulk-remove', { ids: [a.body.id, b.body.id] });
    expect(acc.body.data).toMatchObject({ archived_count: 1, already_sold_count: 1, not_found_count: 0 });
    expect(acc.body.data.already_sold[0]).toMatchObject({ id: b.body.id, status: 'sold' });
  });
});

describe('the switches', () => {
  it('are checked, and REAL_SERVER_SWITCHES_BULK turns each on', () => {
    expect(() => resolveOptions({ bulk: { realAnswers: 'yes' as unknown as boolean } })).toThrow(/bulk.realAnswers/);
    expect(() => resolveOptions({ representation: { realTopUpNames: 1 as unknown as boolean } })).toThrow(
      /representation.realTopUpNames/,
    );
    const resolved = resolveOptions(REAL_SERVER_SWITCHES_BULK);
    expect(resolved.representation.realTopUpNames).toBe(true);
    expect(resolved.bulk).toMatchObject({ resolveExternalIdFirst: true, realAnswers: true });
  });
});
