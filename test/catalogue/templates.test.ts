// The starting kit: the workbooks in config/example-catalogue/templates/ have the headers a seller writes and say
// their price unit, so a seller who copies one into a kind folder and types prices as the sheet shows them gets
// those prices, and no word about the private columns.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, load, tmpCatalogue } from './support/tmp-catalogue.ts';

const TEMPLATES = fileURLToPath(new URL('../../config/example-catalogue/templates/', import.meta.url));
const template = (name: string) => readFileSync(`${TEMPLATES}${name}`);

afterEach(cleanup);

describe('the catalogue templates', () => {
  it.each(['xlsx', 'ods'])(
    'accounts.%s: prices in euros as typed, logins as credentials, own columns silent',
    async (ext) => {
      const s = await load(tmpCatalogue({ [`accounts/accounts.${ext}`]: template(`accounts.${ext}`) }));
      expect(s.problems).toEqual([]);
      const offers = s.offers.map((o) => [o.externalId, o.fields.price]);
      expect(offers).toEqual([
        ['LOL-001', 2499],
        ['LOL-002', 8900],
      ]);
      const first = s.offers[0]!;
      expect(first.kind).toBe('account');
      if (first.kind === 'account') expect(first.credentialsHmac).toBeDefined();
    },
  );

  it.each(['xlsx', 'ods'])('top-ups.%s: title, amount and unit as the site names them', async (ext) => {
    const s = await load(tmpCatalogue({ [`top-ups/top-ups.${ext}`]: template(`top-ups.${ext}`) }));
    expect(s.problems).toEqual([]);
    const rows = s.offers.map((o) => {
      const f = o.fields as Record<string, unknown>;
      return [o.externalId, f.price, f.offer_title, f.offer_amount];
    });
    expect(rows).toEqual([
      ['VAL-VP-1000', 949, '1000 Valorant Points', 1000],
      ['VAL-VP-2050', 1800, '2050 Valorant Points', 2050],
    ]);
  });

  it('sit outside the kind folders, so the example catalogue lists none of them', async () => {
    const s = await load(fileURLToPath(new URL('../../config/example-catalogue/', import.meta.url)));
    expect(s.offers.some((o) => o.externalId.startsWith('LOL-') || o.externalId.startsWith('VAL-'))).toBe(false);
  });
});
