// Conflict groups follow lower case, as the catalogue's index does: external_ids that only lower case makes equal
// are one offer, and no other two (docs/architecture.md, Identity).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { conflictGroup } from '../../src/catalogue/identity.ts';
import { cleanup, tmpCatalogue } from './support/tmp-catalogue.ts';

afterEach(cleanup);

const item = (id: string, price = 100) => JSON.stringify({ external_id: id, title: `T ${id}`, price });

describe('conflict groups', () => {
  it('are the kind and the external_id in lower case', () => {
    expect(conflictGroup('item', 'Sword-7')).toBe(conflictGroup('item', 'SWORD-7'));
    expect(conflictGroup('item', 'Sword-7')).not.toBe(conflictGroup('account', 'sword-7'));
  });

  // 'ß' upper-cases to 'SS': an upper-case group would make 'straße' and 'strasse' one, though neither conflicts.
  it('keep apart two offers that only upper case would make equal, so a reload reports both changed', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': `${item('straße')}\n`, 'items/b.ndjson': `${item('strasse')}\n` });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    expect((await cat.load()).problems).toEqual([]);
    writeFileSync(join(dir, 'items/a.ndjson'), `${item('straße', 200)}\n`);
    writeFileSync(join(dir, 'items/b.ndjson'), `${item('strasse', 300)}\n`);
    const r = await cat.reload({ added: [], changed: ['items/a.ndjson', 'items/b.ndjson'], removed: [] });
    expect(r.changed.sort()).toEqual(['item:strasse', 'item:straße']);
    expect(r.snapshot.problems).toEqual([]);
  });
});
