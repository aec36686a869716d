// streamCsv read directly: every record, every problem with its place and the order they come in, and where the
// locator puts a field, for headers and rows that go wrong in each way a CSV file can. The whole answer is pinned,
// so a change in any step of the read (columns, a field named twice, decimal mark, price unit, rows) shows here.
import { describe, expect, it } from 'vitest';
import { streamCsv } from '../../src/catalogue/formats/csv.ts';
import type { ParseOptions, PathInRecord, RawRecord } from '../../src/catalogue/formats/parsed-file.ts';

/** The records, the end, and the place of each of `paths` in each record. */
function read(text: string, options: ParseOptions, paths: readonly PathInRecord[] = [['price'], ['login', 'x']]) {
  const s = streamCsv(text, options);
  const records: RawRecord[] = [];
  let r = s.records.next();
  for (let n = 0; !r.done && n < 100; n++, r = s.records.next()) records.push(r.value);
  if (!r.done) throw new Error('more than 100 records');
  const places = records.map((rec) => paths.map((p) => s.locate?.(rec, p)));
  return { records, end: r.value, places };
}

describe('streamCsv, the whole answer', () => {
  it('refused, unknown and nested columns; short, long and nameless cells; a header unit', () => {
    const text =
      'External ID,__proto__.status,Colour,login.user,Price (cents),,skins\n' +
      'a-1,x,red,u1,1999,,s1|s2\n' +
      'a-2,x\n' +
      'a-3,x,red,u3,500,extra,s,more\n';
    expect(read(text, { kind: 'account' })).toMatchInlineSnapshot(`
      {
        "end": {
          "csv": {
            "decimalFrom": "comma-separated",
            "decimalMark": "point",
            "delimiter": "comma",
            "delimiterFrom": "header",
          },
          "problems": [
            {
              "column": 13,
              "field": "__proto__.status",
              "line": 1,
              "message": "column '__proto__.status': '__proto__' cannot be a field name: JavaScript reserves it (__proto__, constructor, prototype) and it is never read; rename or remove it; until then nothing from this file is archived",
              "severity": "error",
            },
            {
              "column": 30,
              "field": "Colour",
              "line": 1,
              "message": "column 'Colour' names no field of account offers; its cells are not read (rename the header; if it is your own, start its header with # ('#Colour') or list it in catalogue.ignoreColumns)",
              "severity": "warning",
            },
            {
              "column": 1,
              "line": 3,
              "message": "this row has 2 cells but the header has 7 columns: the missing ones are taken as empty",
              "severity": "warning",
            },
            {
              "column": 18,
              "line": 4,
              "message": "cell 6 has no column name in the header (ignored)",
              "severity": "warning",
            },
          ],
          "unreadable": true,
        },
        "places": [
          [
            {
              "column": 14,
              "line": 2,
            },
            {
              "column": 1,
              "line": 2,
            },
          ],
          [
            {
              "column": 1,
              "line": 3,
            },
            {
              "column": 1,
              "line": 3,
            },
          ],
          [
            {
              "column": 14,
              "line": 4,
            },
            {
              "column": 1,
              "line": 4,
            },
          ],
        ],
        "records": [
          {
            "fromText": true,
            "line": 2,
            "offset": 68,
            "priceUnit": "cents",
            "value": {
              "external_id": "a-1",
              "login": {
                "user": "u1",
              },
              "price": "1999",
              "skins": [
                "s1",
                "s2",
              ],
            },
          },
          {
            "fromText": true,
            "line": 3,
            "offset": 93,
            "priceUnit": "cents",
            "value": {
              "external_id": "a-2",
            },
          },
          {
            "error": "this row has 8 cells but the header has 7 columns (comma-separated): put double quotes around a value that contains a comma",
            "fromText": true,
            "line": 4,
            "offset": 99,
            "priceUnit": "cents",
            "value": {
              "external_id": "a-3",
              "login": {
                "user": "u3",
              },
              "price": "500",
              "skins": "s",
            },
          },
        ],
      }
    `);
  });

  it('a column named twice, as written and through a header', () => {
    expect(read('external_id,title,external_id\na,b,c\n', { kind: 'item' })).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "column": 19,
              "field": "external_id",
              "line": 1,
              "message": "column 'external_id' appears twice in the header: give each field one column",
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
    expect(read('External ID,title,external_id\na,b,c\n', { kind: 'item' })).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "column": 19,
              "field": "external_id",
              "line": 1,
              "message": "columns 'External ID' and 'external_id' both name external_id: give each field one column",
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

  it('a column named twice in a file that is not CSV further down: not valid CSV', () => {
    expect(read('external_id,external_id\na,"b\n', { kind: 'item' })).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "column": 3,
              "line": 2,
              "message": "not valid CSV: a quoted field is never closed: add the closing double quote",
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

  it('a header that is not CSV, and an empty file', () => {
    expect(read('\uFEFFexternal_id,"title\n', { kind: 'item' })).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "column": 13,
              "line": 1,
              "message": "not valid CSV: a quoted field is never closed: add the closing double quote",
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
    expect(read('', { kind: 'item' })).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [],
          "unreadable": false,
          "void": true,
        },
        "places": [],
        "records": [],
      }
    `);
  });

  it('a BOM, semicolons, decimal commas and a price column mixing whole numbers and fractions', () => {
    const text = '\uFEFFexternal_id;title;price\ni-1;One;24,99\ni-2;Two;1500\ni-3;"Th;ree";7,5\n';
    expect(read(text, { kind: 'item', csvDelimiter: 'auto', decimalMark: 'auto' })).toMatchInlineSnapshot(`
      {
        "end": {
          "csv": {
            "decimalFrom": "prices",
            "decimalMark": "comma",
            "delimiter": "semicolon",
            "delimiterFrom": "header",
          },
          "problems": [
            {
              "column": 19,
              "field": "price",
              "line": 1,
              "message": "price column 'price' mixes whole numbers (line 3: 1500) with amounts that have a fraction (line 2: 24,99, line 4: 7,5) and does not say its unit, so a whole number could be cents (1500 would be 15.00) or whole euros: say the unit in the header, e.g. 'Price (EUR)' (or 'Price (cents)'), or set catalogue.priceUnit. Until then the offers priced with a whole number are not synced",
              "severity": "error",
            },
          ],
          "unreadable": false,
        },
        "places": [
          [
            {
              "column": 9,
              "line": 2,
            },
            {
              "column": 1,
              "line": 2,
            },
          ],
          [
            {
              "column": 9,
              "line": 3,
            },
            {
              "column": 1,
              "line": 3,
            },
          ],
          [
            {
              "column": 14,
              "line": 4,
            },
            {
              "column": 1,
              "line": 4,
            },
          ],
        ],
        "records": [
          {
            "decimalMark": "comma",
            "fromText": true,
            "line": 2,
            "offset": 25,
            "value": {
              "external_id": "i-1",
              "price": "24,99",
              "title": "One",
            },
          },
          {
            "decimalMark": "comma",
            "fieldErrors": [
              {
                "message": "a whole number in price column 'price', which also holds amounts with a fraction and does not say its unit: cents or whole euros? Say the unit in the header, e.g. 'Price (EUR)'",
                "path": [
                  "price",
                ],
              },
            ],
            "fromText": true,
            "line": 3,
            "offset": 39,
            "value": {
              "external_id": "i-2",
              "price": "1500",
              "title": "Two",
            },
          },
          {
            "decimalMark": "comma",
            "fromText": true,
            "line": 4,
            "offset": 52,
            "value": {
              "external_id": "i-3",
              "price": "7,5",
              "title": "Th;ree",
            },
          },
        ],
      }
    `);
  });

  it('without a kind: headers as written, no price scan; a row that is not CSV ends the read', () => {
    expect(read('external_id,price,a.b\nx,12,c\ny,"13\n', {})).toMatchInlineSnapshot(`
      {
        "end": {
          "problems": [
            {
              "column": 3,
              "line": 3,
              "message": "not valid CSV: a quoted field is never closed: add the closing double quote",
              "severity": "error",
            },
          ],
          "unreadable": true,
          "void": true,
        },
        "places": [
          [
            {
              "column": 3,
              "line": 2,
            },
            {
              "column": 1,
              "line": 2,
            },
          ],
        ],
        "records": [
          {
            "fromText": true,
            "line": 2,
            "offset": 22,
            "value": {
              "a": {
                "b": "c",
              },
              "external_id": "x",
              "price": "12",
            },
          },
        ],
      }
    `);
  });
});
