// Spreadsheet habits, read as the seller reads them in `offersync validate`: headers written as people write them
// ('External ID', 'external-id', 'Credentials.Email Login'), a header naming no field said once at its cell with a
// suggestion, and a CSV saved by Excel's plain "CSV" choice (Windows-1252) read with a warning naming the file.
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../support/captured-io.ts';
import { cleanup, load, tmpCatalogue } from '../catalogue/support/tmp-catalogue.ts';
import { xlsxParts, textCell, numberCell, zip } from '../support/zip.ts';

afterEach(cleanup);

const validate = (dir: string) => runMain(['validate', dir], { cwd: dir, env: { PATH: process.env.PATH } });

describe('headers as sellers write them', () => {
  it('validate: case, spaces, dashes, underscores do not count; an unknown header: one error at its cell', async () => {
    const dir = tmpCatalogue({
      'items/stock.csv': 'External ID;Title;PRICE;stock;Descripton\r\ng-1;Gold;24,99;5;x\r\ng-2;Gems;3,50;1;y\r\n',
      'accounts/euw.csv':
        'external-id,Title,Price,Credentials.Email Login,parameters.Blue_Essence,Champions\n' +
        'a-1,Gold account,49.90,mail@example.test,1200,Ahri|Lux\n',
      'top-ups/twice.csv': 'External ID,external_id,price\nt-1,t-1,100\n',
      'items/book.xlsx': zip(
        xlsxParts(
          `<row r="1">${textCell('A1', 'External_Id')}${textCell('B1', 'title')}${textCell('C1', 'Prise')}</row>` +
            `<row r="2">${textCell('A2', 'b-1')}${textCell('B2', 'Book')}${numberCell('C2', 100)}</row>` +
            `<row r="3">${textCell('A3', 'b-2')}${textCell('B3', 'Book 2')}${numberCell('C3', 200)}</row>`,
        ),
      ),
    });
    const r = await validate(dir);
    expect(r.code).toBe(1);
    const problems = r.stdout.split('\n').filter((l) => /^ {2}(error|warning) /.test(l));
    expect(problems).toEqual([
      "  warning items/book.xlsx:Items!C1  Prise: column 'Prise' names no field of item offers: did you mean " +
        "'price'?; its cells are not read (rename the header; if it is your own, start its header with # " +
        "('#Prise') or list it in catalogue.ignoreColumns)",
      '  error   items/book.xlsx:Items!A2  [b-1] price: price is required: Integer cents (1999), or a decimal amount ' +
        'in major units (19.99 or "19.99").',
      '  error   items/book.xlsx:Items!A3  [b-2] price: price is required: Integer cents (1999), or a decimal amount ' +
        'in major units (19.99 or "19.99").',
      "  warning items/stock.csv:1:31  Descripton: column 'Descripton' names no field of item offers: did you " +
        "mean 'description'?; its cells are not read (rename the header; if it is your own, start its header " +
        "with # ('#Descripton') or list it in catalogue.ignoreColumns)",
      "  error   top-ups/twice.csv:1:13  external_id: columns 'External ID' and 'external_id' both name " +
        'external_id: give each field one column',
    ]);
    const s = await load(dir);
    expect(s.offers.map((o) => [o.externalId, o.fields])).toEqual([
      ['a-1', { title: 'Gold account', price: 4990, parameters: { blue_essence: 1200 }, champions: ['Ahri', 'Lux'] }],
      ['g-1', { title: 'Gold', price: 2499, stock: 5 }],
      ['g-2', { title: 'Gems', price: 350, stock: 1 }],
    ]);
    expect(s.offers[0]).toMatchObject({ credentials: { email_login: 'mail@example.test' } });
  }, 90_000);
});

describe('a CSV saved by Excel as plain "CSV" (Windows-1252)', () => {
  it('is read, with a warning naming the file; its accented letters come through', async () => {
    const csv = Buffer.from('external_id;title;price\r\nc-1;Café crème – 1 kg;4,50\r\n', 'utf8')
      .toString('utf8')
      .split('')
      .map((ch) => (ch === '–' ? '\x96' : ch))
      .join('');
    const dir = tmpCatalogue({ 'items/excel.csv': Buffer.from(csv, 'latin1') });
    const r = await validate(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'items/excel.csv\n  warning not UTF-8: read as Windows-1252, the encoding of Excel\'s plain "CSV" choice; ' +
        'check its accented letters, and save it as "CSV UTF-8" to be sure of every one',
    );
    const s = await load(dir);
    expect(s.offers.map((o) => [o.externalId, o.fields])).toEqual([
      ['c-1', { title: 'Café crème – 1 kg', price: 450 }],
    ]);
  }, 90_000);
});
