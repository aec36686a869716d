// A file that reads empty is a save in progress (a shell's `>`, an editor, rsync --inplace, a sync client): it is
// quarantined, so the offers it held are kept, and only an explicit empty list says "no offers".
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, afterEach } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { isWatchIgnored } from '../../src/catalogue/watcher.ts';
import { textCell, xlsxParts, zip } from '../support/zip.ts';
import { cleanup, load, tmpCatalogue } from './support/tmp-catalogue.ts';

afterEach(cleanup);

const header =
  `<row r="1">${textCell('A1', 'external_id')}${textCell('B1', 'title')}` + `${textCell('C1', 'price')}</row>`;

describe('a file that reads empty is quarantined, never emptied', () => {
  it.each([
    ['0-byte JSON', 'accounts/a.json', ''],
    ['0-byte NDJSON', 'accounts/a.ndjson', ''],
    ['0-byte YAML', 'accounts/a.yaml', ''],
    ['0-byte CSV', 'accounts/a.csv', ''],
    ['JSON of blanks', 'accounts/a.json', ' \n\t\n'],
    ['NDJSON of a byte-order mark alone', 'accounts/a.ndjson', '\uFEFF'],
    ['YAML of a comment alone', 'accounts/a.yaml', '# nothing yet\n'],
    ['YAML whose offers key is not written yet', 'accounts/a.yaml', 'offers:\n'],
    ['CSV of a header row alone', 'accounts/a.csv', '\uFEFFexternal_id,title,price\n'],
    ['xlsx of a header row alone', 'items/a.xlsx', zip(xlsxParts(header))],
    ['xlsx of an empty sheet', 'items/a.xlsx', zip(xlsxParts(''))],
  ])('%s', async (_what, file, content) => {
    const s = await load(tmpCatalogue({ [file]: content }));
    expect(s.offers).toEqual([]);
    expect(s.quarantinedFiles).toEqual([file]);
    const note = s.problems.find((p) => p.message.startsWith('the file reads empty'))!;
    expect(note).toMatchObject({ severity: 'warning', file });
    expect(note.message).toContain('To remove them all, delete the file');
  });

  it.each([
    ['accounts/a.json', '[]'],
    ['accounts/a.json', '{"kind": "account", "offers": []}'],
    ['accounts/a.yaml', 'offers: []\n'],
    ['accounts/a.yaml', '[]\n'],
  ])('an explicit empty list (%s holding %j) is no offers, not a quarantine', async (file, content) => {
    const s = await load(tmpCatalogue({ [file]: content }));
    expect(s.offers).toEqual([]);
    expect(s.quarantinedFiles).toEqual([]);
  });
});

describe('a workbook replaced by a format offersync cannot read', () => {
  const row = `<row r="2">${textCell('A2', 'x-1')}${textCell('B2', 'Gold')}${textCell('C2', '1.00')}</row>`;

  it('.xls replacing .xlsx under a running catalogue: incomplete, then complete again once fixed', async () => {
    const dir = tmpCatalogue({ 'items/stock.xlsx': zip(xlsxParts(header + row)) });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    expect((await cat.load()).offers.map((o) => o.externalId)).toEqual(['x-1']);
    renameSync(join(dir, 'items/stock.xlsx'), join(dir, 'items/stock.xls'));
    // The watcher reports the .xls: it is not among what it skips.
    expect(isWatchIgnored('items/stock.xls')).toBe(false);
    const r = await cat.reload({ added: ['items/stock.xls'], changed: [], removed: ['items/stock.xlsx'] });
    expect(r.snapshot.complete).toBe(false);
    expect(r.snapshot.problems.map((p) => [p.severity, p.file])).toEqual([['error', 'items/stock.xls']]);
    unlinkSync(join(dir, 'items/stock.xls'));
    writeFileSync(join(dir, 'items/stock.xlsx'), zip(xlsxParts(header + row)));
    const back = await cat.reload({ added: ['items/stock.xlsx'], changed: [], removed: ['items/stock.xls'] });
    expect(back.snapshot.complete).toBe(true);
    expect(back.snapshot.problems).toEqual([]);
    expect(back.snapshot.offers.map((o) => o.externalId)).toEqual(['x-1']);
  });

  it('a fresh load with an .xls beside the other files is incomplete', async () => {
    const s = await load(tmpCatalogue({ 'items/stock.xls': 'not read', 'items/b.json': '[]' }));
    expect(s.complete).toBe(false);
  });
});
