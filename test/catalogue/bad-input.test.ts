// The bad-input corpus: each case its own test, asserting the exact problem (file, line or
// pointer, field) and that the good file beside it still loads. Nothing may throw.
import { mkdirSync, readFileSync, realpathSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs, type CatalogueFs } from '../../src/catalogue/read-file.ts';
import { makePng } from '../support/png.ts';
import {
  GOOD,
  GOOD_IDS,
  cleanup,
  errors,
  fixture,
  ids,
  load,
  tmpCatalogue,
  warnings,
  where,
} from './support/tmp-catalogue.ts';

afterEach(cleanup);

describe('bad input', () => {
  it('malformed JSON: error at its line, file quarantined, others load', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'accounts/bad.json': fixture('malformed.json') });
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([
      { severity: 'error', file: 'accounts/bad.json', line: 3, column: 41, kind: 'account' },
    ]);
    expect(s.problems[0]!.message).toMatch(
      /not valid JSON: expected ',' or '}' after a property value, found '"' \(line 3, column 41\)/,
    );
    expect(s.quarantinedFiles).toEqual(['accounts/bad.json']);
    expect(ids(s)).toEqual(GOOD_IDS);
    expect(s.complete).toBe(true);
  });

  it('truncated YAML: error with a line, file quarantined, its readable documents still named', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'items/cut.yaml': fixture('truncated.yaml') });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      { severity: 'error', file: 'items/cut.yaml', line: expect.any(Number), column: 1, kind: 'item' },
    ]);
    expect(errors(s)[0]!.line).toBeGreaterThanOrEqual(5);
    expect(errors(s)[0]!.message).toMatch(/^not valid YAML/);
    expect(s.quarantinedFiles).toEqual(['items/cut.yaml']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('wrong types: one error per field with its pointer; those offers invalid, file not quarantined', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'accounts/types.json': fixture('wrong-types.json') });
    const s = await load(dir);
    expect(errors(s).map((p) => [p.pointer, p.field, p.externalId])).toEqual([
      ['/0/level', 'level', 'wt-1'],
      ['/1/champions', 'champions', 'wt-2'],
      ['/2/title', 'title', 'wt-3'],
      ['/3/price', 'price', 'wt-4'],
      ['/4/credentials', 'credentials', 'wt-5'],
    ]);
    expect(errors(s)[0]!.message).toBe("expected a whole number of at least 0, got the string 'high'");
    expect(errors(s)[1]!.message).toMatch(/expected a list of strings or one comma-separated string, got number 5/);
    expect(errors(s)[2]!.message).toBe('expected a string, got an array');
    expect(errors(s)[3]!.message).toMatch(
      /expected integer cents \(1999\) or a decimal amount in major units \(19\.99\), got boolean true/,
    );
    expect(s.quarantinedFiles).toEqual([]);
    expect(s.invalidOffers.map((o) => o.externalId)).toEqual(['wt-1', 'wt-2', 'wt-3', 'wt-4', 'wt-5']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('negative and zero prices are errors of those offers', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'items/prices.json': fixture('bad-prices.json') });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual(
      ['p-neg', 'p-zero', 'p-zero-str'].map((id, i) => ({
        severity: 'error',
        file: 'items/prices.json',
        // The value's line and column: an editor jumps straight to it.
        line: i + 2,
        column: [58, 55, 66][i],
        pointer: `/${i}/price`,
        field: 'price',
        kind: 'item',
        externalId: id,
      })),
    );
    for (const p of errors(s)) expect(p.message).toMatch(/^must be greater than zero/);
    expect(ids(s)).toEqual([...GOOD_IDS, 'p-ok']);
  });

  it('missing external_id, title, price: each reported; a record without identity quarantines its file', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'accounts/missing.json': fixture('missing-fields.json') });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'accounts/missing.json',
        // A missing field is located at its offer.
        line: 2,
        column: 3,
        pointer: '/0/external_id',
        field: 'external_id',
        kind: 'account',
      },
      {
        severity: 'error',
        file: 'accounts/missing.json',
        line: 3,
        column: 3,
        pointer: '/1/title',
        field: 'title',
        kind: 'account',
        externalId: 'm-2',
      },
      {
        severity: 'error',
        file: 'accounts/missing.json',
        line: 4,
        column: 3,
        pointer: '/2/price',
        field: 'price',
        kind: 'account',
        externalId: 'm-3',
      },
    ]);
    expect(errors(s)[0]!.message).toMatch(/external_id is required: a non-empty string.*it is missing/);
    expect(errors(s)[1]!.message).toMatch(/^title is required/);
    expect(s.quarantinedFiles).toEqual(['accounts/missing.json']);
    expect(warnings(s).map((w) => w.message)).toEqual([
      expect.stringMatching(/no usable external_id: nothing from this file is archived/),
    ]);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('duplicate external_ids in two files: an error at both places, neither offer synced', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'accounts/a.json': JSON.stringify([{ external_id: 'dup-1', title: 'A', price: 100 }]),
      'accounts/sub/b.csv': 'external_id,title,price\nother,B,100\ndup-1,B,200\n',
    });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'accounts/a.json',
        pointer: '/0/external_id',
        kind: 'account',
        externalId: 'dup-1',
        field: 'external_id',
      },
      {
        severity: 'error',
        file: 'accounts/sub/b.csv',
        line: 3,
        kind: 'account',
        externalId: 'dup-1',
        field: 'external_id',
      },
    ]);
    expect(errors(s)[0]!.message).toMatch(/duplicate external_id 'dup-1': also at accounts\/sub\/b\.csv:3/);
    expect(errors(s)[1]!.message).toMatch(/duplicate external_id 'dup-1': also at accounts\/a\.json#\/0/);
    expect(s.invalidOffers).toEqual([
      { kind: 'account', externalId: 'dup-1', file: 'accounts/a.json' },
      { kind: 'account', externalId: 'dup-1', file: 'accounts/sub/b.csv' },
    ]);
    expect(ids(s)).toEqual([...GOOD_IDS, 'other']);
  });

  it('the same external_id in two kinds is no conflict', async () => {
    const dir = tmpCatalogue({
      'accounts/a.json': '{"external_id":"x","title":"A","price":1}',
      'items/a.json': '{"external_id":"x","title":"I","price":1}',
    });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    expect(s.offers.map((o) => o.kind).sort()).toEqual(['account', 'item']);
  });

  it('external_ids differing only in letter case or surrounding spaces conflict', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'top-ups/a.ndjson':
        '{"external_id":"Case-1","offer_title":"A","price":100}\n' +
        '{"external_id":"case-1 ","offer_title":"B","price":100}\n',
    });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'top-ups/a.ndjson',
        line: 1,
        kind: 'topup',
        externalId: 'Case-1',
        field: 'external_id',
      },
      {
        severity: 'error',
        file: 'top-ups/a.ndjson',
        line: 2,
        kind: 'topup',
        externalId: 'case-1',
        field: 'external_id',
      },
    ]);
    expect(errors(s)[0]!.message).toMatch(
      /'Case-1' differs only in letter case, accents or trailing spaces from 'case-1' at top-ups\/a\.ndjson:2/,
    );
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a UTF-8 BOM in JSON and CSV is no problem', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'accounts/bom.json': fixture('bom.json'),
      'items/bom.csv': fixture('bom-crlf.csv'),
    });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    expect(ids(s)).toEqual(['bom-1', 'bomcsv-1', 'bomcsv-2', ...GOOD_IDS].sort());
  });

  it('CRLF line ends: CSV and NDJSON rows keep their lines, values have no stray \\r', async () => {
    const dir = tmpCatalogue({
      'items/crlf.csv': fixture('bom-crlf.csv'),
      'items/crlf.ndjson':
        '{"external_id":"n-1","title":"One","price":1}\r\n\r\n{"external_id":"n-2","title":"Two","price":"x"}\r\n',
    });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'items/crlf.ndjson',
        line: 3,
        column: 44,
        field: 'price',
        kind: 'item',
        externalId: 'n-2',
      },
    ]);
    const c1 = s.offers.find((o) => o.externalId === 'bomcsv-1')!;
    expect(c1.fields).toEqual({ title: 'BOM and CRLF', price: 100 });
    expect(c1.source).toEqual({ file: 'items/crlf.csv', line: 2 });
  });

  it('quoted CSV fields with commas, quotes and newlines', async () => {
    const dir = tmpCatalogue({ 'items/q.csv': fixture('quoted.csv') });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    const [q1, q2] = s.offers;
    expect(q1!.fields).toEqual({
      title: 'Gold, Silver and Bronze',
      price: 100,
      description: 'line one\nline two, with a comma',
    });
    expect(q2!.fields).toEqual({ title: 'He said "hi"', price: 200 });
    expect(q2!.source.line).toBe(4);
  });

  it('a CSV row with too many columns is an error of that row (line), the other rows load', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'items/cols.csv': fixture('too-many-columns.csv') });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      { severity: 'error', file: 'items/cols.csv', line: 3, column: 1, kind: 'item', externalId: 'c-2' },
    ]);
    expect(errors(s)[0]!.message).toMatch(/4 cells but the header has 3 columns \(comma-separated\)/);
    expect(errors(s)[0]!.message).toMatch(/put double quotes around a value that contains a comma/);
    expect(s.invalidOffers).toEqual([{ kind: 'item', externalId: 'c-2', file: 'items/cols.csv' }]);
    expect(ids(s)).toEqual(['c-1', 'c-3', ...GOOD_IDS]);
  });

  it('a CSV quote that never closes quarantines the file with the line where it opened', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'items/open.csv': 'external_id,title,price\nx-1,"never closed,100\nx-2,B,100\n',
    });
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([
      { severity: 'error', file: 'items/open.csv', line: 2, column: 5, kind: 'item' },
    ]);
    expect(s.quarantinedFiles).toEqual(['items/open.csv']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a 50 MB file over the size limit is an error of that file, not a crash', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'accounts/huge.ndjson': '' });
    truncateSync(join(dir, 'accounts/huge.ndjson'), 50 * 1024 * 1024); // sparse: instant
    const s = await load(dir, { maxFileBytes: 32 * 1024 * 1024 });
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: 'accounts/huge.ndjson', kind: 'account' }]);
    expect(s.problems[0]!.message).toBe(
      'the file is 50 MiB, more than the 32 MiB allowed (catalogue.maxFileBytes): split it into smaller files',
    );
    expect(s.quarantinedFiles).toEqual(['accounts/huge.ndjson']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a 50 MB file under the default limit that is not JSON is a parse error, not a crash', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'accounts/huge.json': Buffer.alloc(50 * 1024 * 1024, 0x20) });
    writeFileSync(join(dir, 'accounts/huge.json'), 'x', { flag: 'a' });
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([
      { severity: 'error', file: 'accounts/huge.json', line: 1, column: 50 * 1024 * 1024 + 1, kind: 'account' },
    ]);
    expect(s.quarantinedFiles).toEqual(['accounts/huge.json']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a binary file named .json', async () => {
    const bin = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    const dir = tmpCatalogue({ ...GOOD, 'accounts/photo.json': bin });
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: 'accounts/photo.json', kind: 'account' }]);
    expect(s.problems[0]!.message).toMatch(/binary file, not text/);
    expect(s.quarantinedFiles).toEqual(['accounts/photo.json']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('invalid UTF-8 text: JSON, or a CSV that is no Windows-1252 either', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'items/latin1.json': Buffer.from('[{"external_id":"l-1","title":"Caf\xe9","price":100}]', 'latin1'),
      'items/other.csv': Buffer.from([...Buffer.from('external_id,title,price\nl-2,Caf'), 0x81, 0x8d, 0x0a]),
    });
    const s = await load(dir);
    expect(s.problems.map((p) => [p.file, p.message])).toEqual([
      ['items/latin1.json', 'not valid UTF-8 text: save the file as UTF-8'],
      ['items/other.csv', 'not valid UTF-8 text: save the file as UTF-8'],
    ]);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a symlink loop (file) is an error of that path; a folder symlinked to its parent is read once', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'accounts/ok.json': '{"external_id":"ok","title":"T","price":1}' });
    symlinkSync('loop-b.json', join(dir, 'accounts/loop-a.json'));
    symlinkSync('loop-a.json', join(dir, 'accounts/loop-b.json'));
    mkdirSync(join(dir, 'items/sub'));
    symlinkSync('..', join(dir, 'items/sub/up'));
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      { severity: 'error', file: 'accounts/loop-a.json', kind: 'account' },
      { severity: 'error', file: 'accounts/loop-b.json', kind: 'account' },
    ]);
    expect(errors(s)[0]!.message).toMatch(/symlink is a loop/);
    expect(warnings(s).map(where)).toEqual([{ severity: 'warning', file: 'items/sub/up' }]);
    expect(s.quarantinedFiles).toEqual(['accounts/loop-a.json', 'accounts/loop-b.json']);
    expect(ids(s)).toEqual([...GOOD_IDS, 'ok']);
    expect(s.complete).toBe(true);
  });

  it('a symlink to a file outside the catalogue (/etc/passwd) is refused', async () => {
    const dir = tmpCatalogue(GOOD);
    symlinkSync('/etc/passwd', join(dir, 'accounts.json'));
    mkdirSync(join(dir, 'accounts'));
    symlinkSync('/etc/passwd', join(dir, 'accounts/passwd.json'));
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: 'accounts/passwd.json', kind: 'account' }]);
    expect(s.problems[0]!.message).toMatch(
      /symlink that leads outside the catalogue|leads outside the catalogue directory/,
    );
    expect(JSON.stringify(s)).not.toMatch(/root:/);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a symlinked folder outside the catalogue is refused and makes the load incomplete', async () => {
    const outside = tmpCatalogue({ 'x.json': '{"external_id":"out","title":"T","price":1}' });
    const dir = tmpCatalogue(GOOD);
    symlinkSync(outside, join(dir, 'items/elsewhere'));
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: 'items/elsewhere' }]);
    expect(s.complete).toBe(false);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a kind folder that is a symlink outside the catalogue is refused, not walked', async () => {
    const outside = tmpCatalogue({ 'x.json': '{"external_id":"out","title":"T","price":1}' });
    const dir = tmpCatalogue(GOOD);
    symlinkSync(outside, join(dir, 'top-ups'));
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: 'top-ups' }]);
    expect(s.problems[0]!.message).toBe(
      `this symlink leads outside the catalogue directory (to ${realpathSync(outside)}): it is not read, and ` +
        'nothing is archived until it is fixed; move or copy the folder into the catalogue instead of linking it',
    );
    expect(s.files).not.toContain('top-ups/x.json');
    expect(s.complete).toBe(false);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a kind folder that is a symlink leading nowhere is an error, never an empty kind', async () => {
    const dir = tmpCatalogue(GOOD);
    symlinkSync(join(dir, 'gone'), join(dir, 'accounts'));
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: 'accounts' }]);
    expect(s.problems[0]!.message).toMatch(/^this symlink leads nowhere \(ENOENT\): it is not read/);
    expect(s.complete).toBe(false);
  });

  it('a kind folder that is a symlink to a folder inside the catalogue is read', async () => {
    const dir = tmpCatalogue({ 'stock/top-ups/t.json': '{"external_id":"in","offer_title":"T","price":1}' });
    symlinkSync(join(dir, 'stock/top-ups'), join(dir, 'top-ups'));
    const s = await load(dir);
    expect(s.files).toContain('top-ups/t.json');
    expect(s.complete).toBe(true);
  });

  it('an image path pointing outside the catalogue (../../etc/passwd) is an error of that offer', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'accounts/a.json': JSON.stringify([
        { external_id: 'evil', title: 'T', price: 100, images: ['../../etc/passwd'] },
        { external_id: 'fine', title: 'T', price: 100 },
      ]),
    });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'accounts/a.json',
        line: 1,
        column: 58,
        pointer: '/0/images/0',
        kind: 'account',
        externalId: 'evil',
        field: 'images',
      },
    ]);
    expect(errors(s)[0]!.message).toMatch(/'\.\.\/\.\.\/etc\/passwd' leaves the catalogue directory/);
    expect(s.invalidOffers).toEqual([{ kind: 'account', externalId: 'evil', file: 'accounts/a.json' }]);
    expect(ids(s)).toEqual(['fine', ...GOOD_IDS]);
  });

  it('an image symlink pointing outside the catalogue is an error of that offer', async () => {
    const dir = tmpCatalogue({ 'accounts/a.csv': 'external_id,title,price,images\nevil,T,100,images/hosts.png\n' });
    mkdirSync(join(dir, 'images'));
    symlinkSync('/etc/hosts', join(dir, 'images/hosts.png'));
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'accounts/a.csv',
        line: 2,
        column: 12,
        kind: 'account',
        externalId: 'evil',
        field: 'images',
      },
    ]);
    expect(errors(s)[0]!.message).toMatch(/symlink that leads outside the catalogue/);
  });

  it('an image that is not an image (by its bytes) is an error of that offer', async () => {
    const dir = tmpCatalogue({
      'images/fake.png': fixture('not-an-image.png'),
      'accounts/a.yaml': 'external_id: a\ntitle: T\nprice: 1\nimages: [images/fake.png]\n',
    });
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'accounts/a.yaml',
        line: 4,
        column: 10,
        pointer: '/images/0',
        kind: 'account',
        externalId: 'a',
        field: 'images',
      },
    ]);
    expect(errors(s)[0]!.message).toBe(
      "'images/fake.png' is not an image (PNG, JPEG, GIF or WEBP, judged by its content)",
    );
  });

  it('an image over 8 MB is an error of that offer', async () => {
    const dir = tmpCatalogue({
      'images/big.png': makePng(4, 4, [1, 2, 3]),
      'accounts/a.json': '{"external_id":"a","title":"T","price":1,"images":["images/big.png"]}',
    });
    truncateSync(join(dir, 'images/big.png'), 9 * 1024 * 1024);
    const s = await load(dir);
    expect(errors(s).map(where)).toEqual([
      {
        severity: 'error',
        file: 'accounts/a.json',
        line: 1,
        column: 52,
        pointer: '/images/0',
        kind: 'account',
        externalId: 'a',
        field: 'images',
      },
    ]);
    expect(errors(s)[0]!.message).toBe("image 'images/big.png' is 9 MiB, more than the 8 MiB allowed: make it smaller");
  });

  it('a missing image is an error of that offer', async () => {
    const dir = tmpCatalogue({
      'accounts/a.json': '{"external_id":"a","title":"T","price":1,"images":"images/nope.png"}',
    });
    const s = await load(dir);
    expect(errors(s)[0]!.message).toMatch(/'images\/nope.png' does not exist/);
    expect(s.offers).toEqual([]);
  });

  it('a file deleted while being read: a warning, its offers left as they are (quarantined), others load', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'accounts/going.json': '{"external_id":"g","title":"T","price":1}' });
    const racing: CatalogueFs = {
      ...nodeFs,
      readFileSync(path: string): Buffer {
        if (path.endsWith('going.json')) unlinkSync(path); // deleted between the listing/stat and the read
        return nodeFs.readFileSync(path);
      },
    };
    const s = await load(dir, { fs: racing });
    expect(s.problems.map(where)).toEqual([{ severity: 'warning', file: 'accounts/going.json', kind: 'account' }]);
    expect(s.problems[0]!.message).toMatch(/disappeared while being read/);
    expect(s.quarantinedFiles).toEqual(['accounts/going.json']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('empty files are a warning, not an error, and quarantined (a save in progress)', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'items/empty.json': '',
      'items/empty.csv': '',
      'items/empty.yaml': '# nothing yet\n',
    });
    const s = await load(dir);
    expect(errors(s)).toEqual([]);
    expect(warnings(s).map((w) => w.file)).toEqual(['items/empty.csv', 'items/empty.json', 'items/empty.yaml']);
    expect(s.quarantinedFiles).toEqual(['items/empty.csv', 'items/empty.json', 'items/empty.yaml']);
    expect(ids(s)).toEqual(GOOD_IDS);
  });

  it('a missing catalogue directory: an error and an incomplete snapshot', async () => {
    const s = await load('/nonexistent/offersync-catalogue');
    expect(s.complete).toBe(false);
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: '.' }]);
  });

  it('ignores dotfiles, editor swap/temp files and files outside the kind folders', async () => {
    const dir = tmpCatalogue({
      ...GOOD,
      'debug.log': 'x',
      'notes.json': '{"external_id":"no"}',
      'items/.hidden.json': 'x',
      'items/.good.yaml.swp': 'x',
      'items/good.yaml~': 'x',
      'items/x.tmp': 'x',
      'items/#good.yaml#': 'x',
      'items/4913': 'x',
      'items/README.md': '# notes',
      '.git/config': 'x',
    });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    expect(s.files).toEqual(['items/good.yaml']);
  });

  it('an unsupported file format in a kind folder is a warning', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'items/stock.docx': 'x' });
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([{ severity: 'warning', file: 'items/stock.docx' }]);
    expect(s.complete).toBe(true);
  });

  it('a spreadsheet offersync cannot read (.xls, .numbers) is an error: nothing is archived meanwhile', async () => {
    const dir = tmpCatalogue({ ...GOOD, 'items/stock.numbers': 'x' });
    const s = await load(dir);
    expect(s.problems.map(where)).toEqual([{ severity: 'error', file: 'items/stock.numbers', kind: 'item' }]);
    expect(readFileSync(join(dir, 'items/stock.numbers'), 'utf8')).toBe('x');
    expect(s.problems[0]!.message).toContain('a spreadsheet format offersync does not read: nothing is archived');
    expect(s.complete).toBe(false);
    expect(ids(s)).toEqual(GOOD_IDS);
  });
});
