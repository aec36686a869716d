// Sheets as a new seller keeps them: prices typed as the column shows them (89 beside 24.99 in a EUR column),
// private columns, the headers and ranks sellers write, and the blank rows Excel leaves behind.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, errors, load, tmpCatalogue, warnings } from './support/tmp-catalogue.ts';
import { sheetXlsx } from '../support/zip.ts';
import { parseRank } from '../../src/catalogue/rank.ts';

afterEach(cleanup);

const workbook = sheetXlsx;

const prices = (s: Awaited<ReturnType<typeof load>>) => s.offers.map((o) => [o.externalId, o.fields.price]);

describe('prices in the unit the sheet shows', () => {
  const accounts = (priceHeader: string) =>
    workbook([
      ['ID', 'Title', priceHeader],
      ['LOL-001', 'Gold account', 24.99],
      ['LOL-002', 'Diamond account', 89],
      ['LOL-003', 'Master account', 179],
    ]);

  it('a stated-EUR column: 24.99 is 2499 cents and 89 is 89.00 (8900), not 0.89', async () => {
    for (const header of ['Price (EUR)', 'price_eur', 'Price €', 'Price in EUR']) {
      const s = await load(tmpCatalogue({ 'accounts/lol-accounts.xlsx': accounts(header) }));
      expect(s.problems, header).toEqual([]);
      expect(prices(s), header).toEqual([
        ['LOL-001', 2499],
        ['LOL-002', 8900],
        ['LOL-003', 17900],
      ]);
    }
  });

  it('an unstated column mixing 24.99 and 89: a column error naming cells and fix; 89 is not listed', async () => {
    const s = await load(tmpCatalogue({ 'accounts/lol-accounts.xlsx': accounts('Price') }));
    // The unambiguous offer is kept; the two whole numbers could be cents or euros, so their offers are not.
    expect(prices(s)).toEqual([['LOL-001', 2499]]);
    const [column, ...cells] = errors(s);
    expect(column).toMatchObject({ file: 'accounts/lol-accounts.xlsx', cell: 'Items!C1', field: 'price' });
    expect(column!.message).toBe(
      "price column 'Price' mixes whole numbers (Items!C3: 89, Items!C4: 179) with amounts that have a fraction " +
        '(Items!C2: 24.99) and does not say its unit, so a whole number could be cents (89 would be 0.89) or whole ' +
        "euros: say the unit in the header, e.g. 'Price (EUR)' (or 'Price (cents)'), or set catalogue.priceUnit. " +
        'Until then the offers priced with a whole number are not synced',
    );
    expect(cells.map((p) => [p.externalId, p.cell])).toEqual([
      ['LOL-002', 'Items!C3'],
      ['LOL-003', 'Items!C4'],
    ]);
  });

  it('catalogue.priceUnit says it for every sheet; a header says it for its own column', async () => {
    const dir = tmpCatalogue({ 'accounts/lol-accounts.xlsx': accounts('Price') });
    expect(prices(await load(dir, { csv: { priceUnit: 'major' } }))).toEqual([
      ['LOL-001', 2499],
      ['LOL-002', 8900],
      ['LOL-003', 17900],
    ]);
    // A cents column refuses a fraction rather than reading it as euros.
    const cents = await load(tmpCatalogue({ 'accounts/lol-accounts.xlsx': accounts('Price (cents)') }));
    expect(prices(cents)).toEqual([
      ['LOL-002', 89],
      ['LOL-003', 179],
    ]);
    expect(errors(cents).map((p) => [p.externalId, p.message])).toEqual([
      [
        'LOL-001',
        "prices here are in cents (as the column's header or catalogue.priceUnit says): expected a whole number of " +
          "cents, got 24.99; write 2499, or say the unit in the header, e.g. 'Price (EUR)'",
      ],
    ]);
  });

  it('catalogue.priceUnit per folder: accounts in euros, items by the API rule', async () => {
    const dir = tmpCatalogue({
      'accounts/lol.csv': 'ID,Title,Price\nLOL-001,Gold,89\n',
      'items/rp.csv': 'ID,Title,Price\nRP-1,650 RP,89\n',
    });
    const s = await load(dir, { csv: { priceUnit: { accounts: 'major', items: 'auto' } } });
    expect(s.problems).toEqual([]);
    expect(prices(s).sort()).toEqual([
      ['LOL-001', 8900],
      ['RP-1', 89],
    ]);
  });

  it('CSV: a semicolon file with a stated unit reads 24,99 and 89 alike; unstated, the mix is an error', async () => {
    const text = (h: string) => `external_id;title;${h}\nv-1;Valorant 1000 VP;24,99\nv-2;Valorant 5350 VP;89\n`;
    const stated = await load(tmpCatalogue({ 'items/vp.csv': text('Price (EUR)') }));
    expect(stated.problems).toEqual([]);
    expect(prices(stated)).toEqual([
      ['v-1', 2499],
      ['v-2', 8900],
    ]);
    const unstated = await load(tmpCatalogue({ 'items/vp.csv': text('price') }));
    expect(prices(unstated)).toEqual([['v-1', 2499]]);
    expect(errors(unstated)[0]!.message).toMatch(/^price column 'price' mixes whole numbers \(line 3: 89\) with/);
  });

  it('JSON, NDJSON and YAML keep the API rule whatever catalogue.priceUnit says: 89 is 89 cents', async () => {
    const dir = tmpCatalogue({
      'items/a.json': '[{"external_id":"j-1","title":"t","price":89},{"external_id":"j-2","title":"t","price":24.99}]',
    });
    const s = await load(dir, { csv: { priceUnit: 'major' } });
    expect(s.problems).toEqual([]);
    expect(prices(s)).toEqual([
      ['j-1', 89],
      ['j-2', 2499],
    ]);
  });
});

describe('columns as sellers keep them', () => {
  it('private columns (# or _ headers, catalogue.ignoreColumns) are passed over without a word', async () => {
    const book = workbook([
      ['ID', 'Title', 'Price (EUR)', '#Bought for', '_notes', 'Bought for', 'Notes'],
      ['LOL-001', 'Gold account', 24.99, 10, 'from Tom', 11, 'smurf'],
    ]);
    const s = await load(tmpCatalogue({ 'accounts/lol.xlsx': book }), {
      csv: { ignoreColumns: ['Bought for', 'notes'] },
    });
    expect(s.problems).toEqual([]);
    expect(s.offers.map((o) => o.fields)).toEqual([{ title: 'Gold account', price: 2499 }]);
    expect(s.quarantinedFiles).toEqual([]);
  });

  it("a private column with no setting: a warning that says how to keep it, no 'did you mean roles'", async () => {
    const s = await load(
      tmpCatalogue({ 'accounts/lol.csv': 'ID,Title,Price (EUR),Notes,Bought for\nLOL-001,Gold,24.99,smurf,10\n' }),
    );
    expect(errors(s)).toEqual([]);
    expect(s.offers.map((o) => o.externalId)).toEqual(['LOL-001']);
    expect(warnings(s).map((p) => p.message)).toEqual([
      "column 'Notes' names no field of account offers; its cells are not read: if it is your own, start its " +
        "header with # ('#Notes') or list it in catalogue.ignoreColumns",
      "column 'Bought for' names no field of account offers; its cells are not read: if it is your own, start " +
        "its header with # ('#Bought for') or list it in catalogue.ignoreColumns",
    ]);
  });

  it('headers sellers write map to their fields: ID, Email, Email password, Champions as a count', async () => {
    const book = workbook([
      ['ID', 'Title', 'Price (EUR)', 'Login', 'Password', 'Email', 'Email password', 'Champions', 'Skins', 'Rank'],
      ['LOL-001', 'Gold', 24.99, 'alice', 'pw', 'a@x.test', 'mailpw', 152, 'Star Guardian Ahri|Arcade Lux', 'Gold II'],
    ]);
    const s = await load(tmpCatalogue({ 'accounts/lol.xlsx': book }));
    expect(s.problems).toEqual([]);
    const [a] = s.offers;
    expect(a).toMatchObject({
      externalId: 'LOL-001',
      fields: {
        champion_count: 152,
        skins: ['Star Guardian Ahri', 'Arcade Lux'],
        current_rank: 'gold',
        current_division: 'II',
      },
      credentials: { login: 'alice', password: 'pw', email_login: 'a@x.test', email_password: 'mailpw' },
    });
  });

  it('ranks as sellers write them are read', async () => {
    const book = workbook([
      ['SKU', 'Title', 'Price (EUR)', 'Rank'],
      ['a-1', 'A', 10, 'Unranked'],
      ['a-2', 'B', 10, 'Plat 1'],
      ['a-3', 'C', 10, 'gold2'],
      ['a-4', 'D', 10, 'D4'],
      ['a-5', 'E', 10, 'Diamond 4 (75 LP)'],
    ]);
    const s = await load(tmpCatalogue({ 'accounts/lol.xlsx': book }));
    expect(s.problems).toEqual([]);
    const rank = (o: (typeof s.offers)[number]) => {
      const f = o.fields as Record<string, unknown>;
      return [o.externalId, f.current_rank, f.current_division, f.current_lp];
    };
    expect(s.offers.map(rank)).toEqual([
      ['a-1', undefined, undefined, undefined], // no rank: the field is left out
      ['a-2', 'platinum', 'I', undefined],
      ['a-3', 'gold', 'II', undefined],
      ['a-4', 'diamond', 'IV', undefined],
      ['a-5', 'diamond', 'IV', 75],
    ]);
    // Still refused: what is not a rank, and a lone letter (it could be anything).
    expect(parseRank('D')).toHaveProperty('error');
    expect(parseRank('Wood 3')).toHaveProperty('error');
  });

  it("Excel's trailing rows of bare delimiters (;;;;) are blank rows: no problem, nothing quarantined", async () => {
    const s = await load(tmpCatalogue({ 'items/stock.csv': 'external_id;title;price\ni-1;Gold;1999\n;;\n;;\n ; ;\n' }));
    expect(s.problems).toEqual([]);
    expect(s.quarantinedFiles).toEqual([]);
    expect(s.offers.map((o) => o.externalId)).toEqual(['i-1']);
  });
});
