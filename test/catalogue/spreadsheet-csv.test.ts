// CSV files as spreadsheet programs export them (test/fixtures/catalogue/spreadsheets/README.md says how each
// was made): delimiter from the header or Excel's sep= line, BOM, quoted line breaks, decimal commas read only
// where they cannot be a delimiter, and every problem at a line and column.
import { describe, afterEach, expect, it } from 'vitest';
import { cleanup, errors, fixture, load, tmpCatalogue } from './support/tmp-catalogue.ts';
import { parseCsv } from '../../src/catalogue/csv-rows.ts';

afterEach(cleanup);

const sheet = (name: string): Buffer => fixture(`spreadsheets/${name}`);

describe('CSV as spreadsheets write it', () => {
  it('Excel, German settings: BOM, semicolons, CRLF, decimal comma, a quoted cell with a line break', async () => {
    const dir = tmpCatalogue({ 'items/stock.csv': sheet('excel-de-semicolon.csv') });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    expect(s.offers.map((o) => [o.externalId, o.fields])).toEqual([
      ['x-1', { title: 'Gold 1000', price: 2499, stock: 5, description: 'Delivered in game' }],
      [
        'x-2',
        { title: 'Diamonds; 500 pack', price: 129900, stock: 1, description: 'Two lines:\nfirst; then "second"' },
      ],
      ['x-3', { title: 'Silver', price: 350, stock: 10 }],
    ]);
    expect(s.offers.map((o) => o.source.line)).toEqual([2, 3, 5]);
    expect(s.csvDialects).toEqual([
      {
        file: 'items/stock.csv',
        delimiter: 'semicolon',
        delimiterFrom: 'header',
        decimalMark: 'comma',
        decimalFrom: 'prices',
      },
    ]);
  });

  it('LibreOffice, German locale, tab-separated: the same offers', async () => {
    const dir = tmpCatalogue({ 'items/stock.csv': sheet('libreoffice-de-tab.csv') });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    expect(s.offers.map((o) => [o.externalId, o.fields.price, 'title' in o.fields ? o.fields.title : ''])).toEqual([
      ['t-1', 2499, 'Gold 1000'],
      ['t-2', 129900, 'Diamonds, 500 pack'],
      ['t-3', 50, 'Silver'],
    ]);
    expect(s.offers[1]!.fields).toMatchObject({ description: 'Two lines:\nfirst\tthen "second"' });
    expect(s.csvDialects[0]).toMatchObject({ delimiter: 'tab', decimalMark: 'comma' });
  });

  it('a comma-separated file never reads a decimal comma: the quoted "24,99" is an error at its cell', async () => {
    const dir = tmpCatalogue({ 'items/stock.csv': sheet('libreoffice-en-comma.csv') });
    const s = await load(dir);
    expect(s.offers.map((o) => [o.externalId, o.fields.price])).toEqual([['c-1', 2499]]);
    expect(errors(s)).toEqual([
      {
        severity: 'error',
        file: 'items/stock.csv',
        line: 3,
        column: 26,
        field: 'price',
        kind: 'item',
        externalId: 'c-2',
        message: expect.stringMatching(/got '24,99': a decimal comma is read only in semicolon or tab separated/),
      },
    ]);
    expect(s.csvDialects[0]).toMatchObject({
      delimiter: 'comma',
      decimalMark: 'point',
      decimalFrom: 'comma-separated',
    });
  });

  it("Excel's sep= first line names the delimiter; lines still count it", async () => {
    const dir = tmpCatalogue({ 'items/stock.csv': sheet('excel-sep-line.csv') });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    expect(s.offers.map((o) => [o.externalId, o.fields.price, o.source.line])).toEqual([['s-1', 1990, 3]]);
    expect(s.csvDialects[0]).toMatchObject({ delimiter: 'semicolon', delimiterFrom: 'sep line' });
  });

  it('a semicolon header with a comma in a cell reads as its columns, not as one', async () => {
    // Read as comma-separated, this file fails with "header has 1 columns: put double quotes around a value that
    // contains a comma", which a seller whose Excel writes semicolons cannot act on.
    const dir = tmpCatalogue({ 'items/a.csv': 'external_id;title;price\na-1;Gold, the best;5,00\n' });
    const s = await load(dir);
    expect(s.problems).toEqual([]);
    expect(s.offers[0]!.fields).toEqual({ title: 'Gold, the best', price: 500 });
  });

  it('in a decimal-comma file a price with a point is refused at its cell, not guessed', async () => {
    const dir = tmpCatalogue({ 'items/a.csv': 'external_id;title;price\na-1;One;24,99\na-2;Two;1.299\n' });
    const s = await load(dir);
    expect(errors(s).map((p) => [p.externalId, p.line, p.column, p.field])).toEqual([['a-2', 3, 9, 'price']]);
    expect(errors(s)[0]!.message).toMatch(/decimal comma: expected integer cents \(1999\) or 19,99 or 1\.299,00/);
  });

  it('catalogue.csv.delimiter and decimalMark override detection (the sep= line overrides both)', async () => {
    const dir = tmpCatalogue({
      'items/a.csv': 'external_id;title;price\na-1;One;24,99\n',
      'items/b.csv': 'sep=,\nexternal_id,title,price\nb-1,Two,1999\n',
    });
    const s = await load(dir, { csv: { csvDelimiter: 'semicolon', decimalMark: 'point' } });
    expect(s.csvDialects.map((d) => [d.file, d.delimiter, d.delimiterFrom, d.decimalMark, d.decimalFrom])).toEqual([
      ['items/a.csv', 'semicolon', 'setting', 'point', 'setting'],
      ['items/b.csv', 'comma', 'sep line', 'point', 'setting'],
    ]);
    expect(errors(s).map((p) => [p.externalId, p.line, p.column])).toEqual([['a-1', 2, 9]]);
    expect(s.offers.map((o) => o.externalId)).toEqual(['b-1']);
  });

  it('delimiter detection counts only outside quotes, and a one-column file stays comma', () => {
    expect(parseCsv('"a;b;c",d,e\n1,2,3\n').delimiter).toBe('comma');
    expect(parseCsv('"a,b,c";d;e\n1;2;3\n').delimiter).toBe('semicolon');
    expect(parseCsv('external_id\nx\n').delimiter).toBe('comma');
    expect(parseCsv('a\tb;c\td\n').delimiter).toBe('tab');
  });
});
