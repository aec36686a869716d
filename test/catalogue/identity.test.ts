// Conflict groups follow the marketplace's collation (utf8mb4_unicode_ci), as the catalogue's index does:
// external_ids it takes as equal (letter case, accents, trailing spaces) are one offer, and no other two
// (docs/architecture.md, Identity). validate refuses what the marketplace refuses of an id.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { conflictGroup } from '../../src/catalogue/identity.ts';
import { cleanup, tmpCatalogue } from './support/tmp-catalogue.ts';

afterEach(cleanup);

const item = (id: string, price = 100) => JSON.stringify({ external_id: id, title: `T ${id}`, price });

describe('conflict groups', () => {
  it('are the kind and the external_id without case, accents or trailing spaces', () => {
    expect(conflictGroup('item', 'Sword-7')).toBe(conflictGroup('item', 'SWORD-7'));
    expect(conflictGroup('item', 'Sword-7')).not.toBe(conflictGroup('account', 'sword-7'));
    expect(conflictGroup('item', 'Café-1 ')).toBe(conflictGroup('item', 'cafe-1'));
    expect(conflictGroup('item', 'STRASSE')).toBe(conflictGroup('item', 'straße'));
    expect(conflictGroup('item', ' lead')).not.toBe(conflictGroup('item', 'lead')); // leading spaces count
    expect(conflictGroup('item', 'a-1')).not.toBe(conflictGroup('item', 'a-2'));
  });

  // 'ı' (dotless i) upper-cases to 'I': an upper-case group would make 'ıd-1' and 'id-1' one, though the
  // marketplace's collation keeps them apart.
  it('keep apart two offers that only upper case would make equal, so a reload reports both changed', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': `${item('ıd-1')}\n`, 'items/b.ndjson': `${item('id-1')}\n` });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    expect((await cat.load()).problems).toEqual([]);
    writeFileSync(join(dir, 'items/a.ndjson'), `${item('ıd-1', 200)}\n`);
    writeFileSync(join(dir, 'items/b.ndjson'), `${item('id-1', 300)}\n`);
    const r = await cat.reload({ added: [], changed: ['items/a.ndjson', 'items/b.ndjson'], removed: [] });
    expect(r.changed.sort()).toEqual(['item:id-1', 'item:ıd-1']);
    expect(r.snapshot.problems).toEqual([]);
  });
});

describe('validate refuses what the marketplace refuses of an offer', () => {
  const load = async (files: Record<string, string>) =>
    (await new Catalogue({ dir: tmpCatalogue(files), credentialsKey: 'k' }).load()).problems;

  // The marketplace compares external_ids under utf8mb4_unicode_ci: the second create is a 409.
  it('two ids equal under the marketplace collation, each error naming the other file and row', async () => {
    const problems = await load({
      'items/a.ndjson': `${item('Café-1')}\n`,
      'items/b.csv': 'external_id,title,price\ncafe-1,Other,100\n',
    });
    expect(problems.map((p) => [p.severity, p.file, p.field, p.externalId])).toEqual([
      ['error', 'items/a.ndjson', 'external_id', 'Café-1'],
      ['error', 'items/b.csv', 'external_id', 'cafe-1'],
    ]);
    expect(problems[0]!.message).toContain("'cafe-1' at items/b.csv:2");
    expect(problems[1]!.message).toContain("'Café-1' at items/a.ndjson:1");
    expect(problems[0]!.message).toContain('which the marketplace takes as the same id');
  });

  it('an external_id over 191 characters (the create would be refused)', async () => {
    const long = 'x'.repeat(192);
    const problems = await load({ 'items/a.ndjson': `${item(long)}\n${item('é'.repeat(191))}\n` });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ severity: 'error', file: 'items/a.ndjson', line: 1, field: 'external_id' });
    expect(problems[0]!.message).toMatch(/192 characters long: the marketplace keeps at most 191.*shorten it/);
  });

  it('a top-up without a title (offer_title), which the marketplace always refuses', async () => {
    const problems = await load({
      'top-ups/t.ndjson': `${JSON.stringify({ external_id: 'tu-1', price: 100 })}\n`,
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ severity: 'error', field: 'offer_title', externalId: 'tu-1' });
    expect(problems[0]!.message).toMatch(/offer_title is required/);
  });

  it('says nothing against external_ids of digits only', async () => {
    expect(await load({ 'items/a.ndjson': `${item('123')}\n${item('00042')}\n` })).toEqual([]);
  });
});
