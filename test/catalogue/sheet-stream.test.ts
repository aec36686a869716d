// streamSheet read directly: every record, every problem with its cell and the order they come in, and where the
// locator puts a field, for workbooks whose headers and rows go wrong in each way a sheet can. The whole answer is
// pinned, so a change in any step of the read (the sheet, the header row, a row's cells) shows here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PathInRecord, RawRecord } from '../../src/catalogue/formats/parsed-file.ts';
import { type SheetOptions, streamSheet } from '../../src/catalogue/formats/sheet.ts';
import type { SheetFormat } from '../../src/catalogue/layout.ts';
import { sheetXlsx } from '../support/zip.ts';

const MAX = 64 * 1024 * 1024;

/** The records, the end, and the place of each of `paths` in each record. */
async function read(
  format: SheetFormat,
  buf: Uint8Array,
  options: Partial<SheetOptions> = {},
  paths: readonly PathInRecord[] = [['price'], ['title'], ['login', 'x']],
) {
  const s = streamSheet(format, buf, { kind: 'item', maxUnpackedBytes: MAX, ...options });
  const records: RawRecord[] = [];
  let r = await s.records.next();
  for (let n = 0; !r.done && n < 100; n++, r = await s.records.next()) records.push(r.value);
  if (!r.done) throw new Error('more than 100 records');
  const places = records.map((rec) => paths.map((p) => s.locate?.(rec, p)));
  return { records, end: r.value, places };
}

const book = (name: string): Buffer =>
  readFileSync(new URL(`../fixtures/catalogue/workbooks/${name}`, import.meta.url));

describe('streamSheet, the whole answer', () => {
  it('a header below an empty row: refused, unknown, own and nameless columns; error cells; typed cells', async () => {
    const buf = sheetXlsx([
      [null],
      ['External ID', '__proto__.x', 'Colour', '#Mine', 'title', 'Price', null, 'images', 'stock'],
      [1001, 'x', 'red', 'mine', 'One', 24.99, 'stray', 'a|b', 5],
      ['', null, null, null, '   '],
      ['i-2', 'x', 'blue', null, '#DIV/0!', 1500, null, 'c', '7'],
      ['i-3', null, null, null, 'Three', '19,90', 'again', null, null, 'far'],
    ]);
    expect(await read('xlsx', buf)).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "cell": "Items!B2",
              "column": 2,
              "field": "__proto__.x",
              "line": 2,
              "message": "column '__proto__.x': '__proto__' cannot be a field name: JavaScript reserves it (__proto__, constructor, prototype) and it is never read; rename or remove it; until then nothing from this file is archived",
              "severity": "error",
            },
            {
              "cell": "Items!C2",
              "column": 3,
              "field": "Colour",
              "line": 2,
              "message": "column 'Colour' names no field of item offers; its cells are not read (rename the header; if it is your own, start its header with # ('#Colour') or list it in catalogue.ignoreColumns)",
              "severity": "warning",
            },
            {
              "cell": "Items!H2",
              "column": 8,
              "field": "images",
              "line": 2,
              "message": "column 'images' names no field of item offers; its cells are not read (rename the header; if it is your own, start its header with # ('#images') or list it in catalogue.ignoreColumns)",
              "severity": "warning",
            },
            {
              "cell": "Items!F2",
              "column": 6,
              "field": "price",
              "line": 2,
              "message": "price column 'Price' mixes whole numbers (Items!F5: 1500) with amounts that have a fraction (Items!F3: 24.99, Items!F6: 19,90) and does not say its unit, so a whole number could be cents (1500 would be 15.00) or whole euros: say the unit in the header, e.g. 'Price (EUR)' (or 'Price (cents)'), or set catalogue.priceUnit. Until then the offers priced with a whole number are not synced",
              "severity": "error",
            },
            {
              "cell": "Items!G3",
              "column": 7,
              "line": 3,
              "message": "column G has cells but no name in the header row (row 2): they are not read",
              "severity": "warning",
            },
            {
              "cell": "Items!J6",
              "column": 10,
              "line": 6,
              "message": "column J has cells but no name in the header row (row 2): they are not read",
              "severity": "warning",
            },
          ],
          "unreadable": true,
        },
        "places": [
          [
            {
              "cell": "Items!F3",
              "column": 6,
              "line": 3,
            },
            {
              "cell": "Items!E3",
              "column": 5,
              "line": 3,
            },
            {
              "cell": "Items!A3",
              "column": 1,
              "line": 3,
            },
          ],
          [
            {
              "cell": "Items!F5",
              "column": 6,
              "line": 5,
            },
            {
              "cell": "Items!E5",
              "column": 5,
              "line": 5,
            },
            {
              "cell": "Items!A5",
              "column": 1,
              "line": 5,
            },
          ],
          [
            {
              "cell": "Items!F6",
              "column": 6,
              "line": 6,
            },
            {
              "cell": "Items!E6",
              "column": 5,
              "line": 6,
            },
            {
              "cell": "Items!A6",
              "column": 1,
              "line": 6,
            },
          ],
        ],
        "records": [
          {
            "fromText": true,
            "keysChecked": true,
            "line": 3,
            "value": {
              "external_id": "1001",
              "price": 24.99,
              "stock": 5,
              "title": "One",
            },
          },
          {
            "fieldErrors": [
              {
                "message": "the cell shows the spreadsheet error #DIV/0!: correct its formula or type the value",
                "path": [
                  "title",
                ],
              },
              {
                "message": "a whole number in price column 'Price', which also holds amounts with a fraction and does not say its unit: cents or whole euros? Say the unit in the header, e.g. 'Price (EUR)'",
                "path": [
                  "price",
                ],
              },
            ],
            "fromText": true,
            "keysChecked": true,
            "line": 5,
            "value": {
              "external_id": "i-2",
              "stock": "7",
            },
          },
          {
            "decimalMark": "comma",
            "fromText": true,
            "keysChecked": true,
            "line": 6,
            "value": {
              "external_id": "i-3",
              "price": "19,90",
              "title": "Three",
            },
          },
        ],
      }
    `);
  });

  it('a field named twice, and a header unit', async () => {
    expect(
      await read(
        'xlsx',
        sheetXlsx([
          ['external_id', 'External ID'],
          ['a', 'b'],
        ]),
      ),
    ).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "cell": "Items!B1",
              "column": 2,
              "field": "external_id",
              "line": 1,
              "message": "columns 'external_id' and 'External ID' both name external_id: give each field one column",
              "severity": "error",
            },
          ],
          "unreadable": true,
          "void": true,
        },
        "places": [],
        "records": [],
      }
    `);
    expect(
      await read(
        'xlsx',
        sheetXlsx([
          ['external_id', 'Price (cents)'],
          ['a', 1500],
          ['b', '12.5'],
        ]),
      ),
    ).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [],
          "unreadable": false,
        },
        "places": [
          [
            {
              "cell": "Items!B2",
              "column": 2,
              "line": 2,
            },
            {
              "cell": "Items!A2",
              "column": 1,
              "line": 2,
            },
            {
              "cell": "Items!A2",
              "column": 1,
              "line": 2,
            },
          ],
          [
            {
              "cell": "Items!B3",
              "column": 2,
              "line": 3,
            },
            {
              "cell": "Items!A3",
              "column": 1,
              "line": 3,
            },
            {
              "cell": "Items!A3",
              "column": 1,
              "line": 3,
            },
          ],
        ],
        "records": [
          {
            "fromText": true,
            "keysChecked": true,
            "line": 2,
            "priceUnit": "cents",
            "value": {
              "external_id": "a",
              "price": 1500,
            },
          },
          {
            "fromText": true,
            "keysChecked": true,
            "line": 3,
            "priceUnit": "cents",
            "value": {
              "external_id": "b",
              "price": "12.5",
            },
          },
        ],
      }
    `);
  });

  it('an empty sheet, and a file that is no workbook', async () => {
    expect(await read('xlsx', sheetXlsx([]))).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "message": "the sheet 'Items' is empty: it starts with a header row of field names",
              "severity": "warning",
            },
          ],
          "unreadable": false,
          "void": true,
        },
        "places": [],
        "records": [],
      }
    `);
    expect(await read('xlsx', Buffer.from('not a zip at all'))).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "message": "not an .xlsx file: it is not a ZIP archive (is it an old .xls, or a renamed file?)",
              "severity": "error",
            },
          ],
          "unreadable": true,
          "void": true,
        },
        "places": [],
        "records": [],
      }
    `);
    expect(await read('ods', Buffer.from('not a zip at all'))).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "message": "not an .ods file: it is not a ZIP archive (is it an old .xls, or a renamed file?)",
              "severity": "error",
            },
          ],
          "unreadable": true,
          "void": true,
        },
        "places": [],
        "records": [],
      }
    `);
  });

  it.each([
    ['xlsx', 'items-typed.xlsx', 'item'],
    ['ods', 'items-typed.ods', 'item'],
    ['xlsx', 'accounts-nested.xlsx', 'account'],
  ] as const)('.%s written by LibreOffice: %s', async (format, name, kind) => {
    expect(await read(format, book(name), { kind })).toMatchSnapshot();
  });
});
