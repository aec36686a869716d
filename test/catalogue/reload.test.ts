// Catalogue.reload: re-parses only the files named, and says which offers appeared, changed or went.
import { mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { makePng } from '../support/png.ts';
import { cleanup, tmpCatalogue } from './support/tmp-catalogue.ts';

afterEach(cleanup);

const item = (id: string, price = 100) => JSON.stringify({ external_id: id, title: `T ${id}`, price });

describe('Catalogue.reload', () => {
  it('reports added, changed and removed offers by kind:external_id', async () => {
    const dir = tmpCatalogue({
      'items/a.ndjson': `${item('a1')}\n${item('a2')}\n`,
      'items/b.ndjson': `${item('b1')}\n`,
    });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    expect((await cat.load()).offers).toHaveLength(3);
    writeFileSync(join(dir, 'items/a.ndjson'), `${item('a1', 200)}\n${item('a3')}\n`);
    writeFileSync(join(dir, 'items/c.ndjson'), `${item('c1')}\n`);
    unlinkSync(join(dir, 'items/b.ndjson'));
    const r = await cat.reload({ added: ['items/c.ndjson'], changed: ['items/a.ndjson'], removed: ['items/b.ndjson'] });
    expect(r.added.sort()).toEqual(['item:a3', 'item:c1']);
    expect(r.changed).toEqual(['item:a1']);
    expect(r.removed.sort()).toEqual(['item:a2', 'item:b1']);
    expect(r.snapshot.offers.map((o) => o.externalId).sort()).toEqual(['a1', 'a3', 'c1']);
    expect(r.snapshot.files).toEqual(['items/a.ndjson', 'items/c.ndjson']);
    // The result equals a fresh load.
    const fresh = await new Catalogue({ dir, credentialsKey: 'k' }).load();
    expect(r.snapshot.offers.map((o) => o.hash).sort()).toEqual(fresh.offers.map((o) => o.hash).sort());
  });

  it('an offer moved to another file is neither added nor removed', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': `${item('m')}\n`, 'items/b.ndjson': '' });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    await cat.load();
    writeFileSync(join(dir, 'items/a.ndjson'), '');
    writeFileSync(join(dir, 'items/b.ndjson'), `${item('m')}\n`);
    const r = await cat.reload({ added: [], changed: ['items/a.ndjson', 'items/b.ndjson'], removed: [] });
    expect([r.added, r.changed, r.removed]).toEqual([[], [], []]);
    expect(r.snapshot.offers[0]!.source.file).toBe('items/b.ndjson');
  });

  it('a rename (removed + added) keeps the offers', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': `${item('r')}\n` });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    await cat.load();
    renameSync(join(dir, 'items/a.ndjson'), join(dir, 'items/z.ndjson'));
    const r = await cat.reload({ added: ['items/z.ndjson'], changed: [], removed: ['items/a.ndjson'] });
    expect([r.added, r.changed, r.removed]).toEqual([[], [], []]);
  });

  it('a duplicate created by a change makes both invalid (removed), and fixing it brings them back', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': `${item('d')}\n`, 'items/b.ndjson': `${item('e')}\n` });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    await cat.load();
    writeFileSync(join(dir, 'items/b.ndjson'), `${item('D')}\n`);
    const r1 = await cat.reload({ added: [], changed: ['items/b.ndjson'], removed: [] });
    expect(r1.removed.sort()).toEqual(['item:d', 'item:e']);
    expect(r1.snapshot.invalidOffers.map((o) => o.externalId).sort()).toEqual(['D', 'd']);
    writeFileSync(join(dir, 'items/b.ndjson'), `${item('e')}\n`);
    const r2 = await cat.reload({ added: [], changed: ['items/b.ndjson'], removed: [] });
    expect(r2.added.sort()).toEqual(['item:d', 'item:e']);
    expect(r2.snapshot.problems).toEqual([]);
  });

  it('a changed image re-reads the offers that name it', async () => {
    const dir = tmpCatalogue({
      'images/p.png': makePng(8, 8, [1, 1, 1]),
      'accounts/a.json': '{"external_id":"a","title":"T","price":1,"images":["images/p.png"]}',
      'accounts/b.json': '{"external_id":"b","title":"T","price":1}',
    });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    const s0 = await cat.load();
    writeFileSync(join(dir, 'images/p.png'), makePng(8, 8, [2, 2, 2]));
    const r = await cat.reload({ added: [], changed: ['images/p.png'], removed: [] });
    expect(r.changed).toEqual(['account:a']);
    const a0 = s0.offers.find((o) => o.externalId === 'a')!;
    const a1 = r.snapshot.offers.find((o) => o.externalId === 'a')!;
    expect(a0.kind === 'account' && a1.kind === 'account' && a0.images[0]!.sha256 !== a1.images[0]!.sha256).toBe(true);
    unlinkSync(join(dir, 'images/p.png'));
    const r2 = await cat.reload({ added: [], changed: [], removed: ['images/p.png'] });
    expect(r2.removed).toEqual(['account:a']);
    expect(r2.snapshot.invalidOffers).toEqual([{ kind: 'account', externalId: 'a', file: 'accounts/a.json' }]);
  });

  it('a removed folder removes the files under it; ignored paths are ignored', async () => {
    const dir = tmpCatalogue({ 'items/eu/a.ndjson': `${item('x')}\n`, 'items/b.ndjson': `${item('y')}\n` });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    await cat.load();
    rmSync(join(dir, 'items/eu'), { recursive: true });
    const r = await cat.reload({ added: ['items/.x.swp', 'debug.log'], changed: [], removed: ['items/eu'] });
    expect(r.removed).toEqual(['item:x']);
    expect(r.snapshot.files).toEqual(['items/b.ndjson']);
  });

  it('a changed file that vanished before it was read is quarantined, not removed', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': `${item('v')}\n` });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    await cat.load();
    unlinkSync(join(dir, 'items/a.ndjson'));
    const r = await cat.reload({ added: [], changed: ['items/a.ndjson'], removed: [] });
    expect(r.snapshot.quarantinedFiles).toEqual(['items/a.ndjson']);
    expect(r.snapshot.problems[0]).toMatchObject({ severity: 'warning', file: 'items/a.ndjson' });
    const r2 = await cat.reload({ added: [], changed: [], removed: ['items/a.ndjson'] });
    expect(r2.snapshot.quarantinedFiles).toEqual([]);
    expect(r2.snapshot.files).toEqual([]);
  });

  it('reload before load is a full load, everything added', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': `${item('f')}\n` });
    mkdirSync(join(dir, 'top-ups'));
    const r = await new Catalogue({ dir, credentialsKey: 'k' }).reload({ added: [], changed: [], removed: [] });
    expect(r.added).toEqual(['item:f']);
  });

  it('rejects bad options at construction, naming what was expected', () => {
    expect(() => new Catalogue({ dir: 'relative', credentialsKey: 'k' })).toThrow(/dir must be an absolute path/);
    expect(() => new Catalogue({ dir: '/x', credentialsKey: '' })).toThrow(/credentialsKey/);
    expect(() => new Catalogue({ dir: '/x', credentialsKey: 'k', maxFileBytes: 0 })).toThrow(
      /maxFileBytes must be a positive integer/,
    );
  });
});
