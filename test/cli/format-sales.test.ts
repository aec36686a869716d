import { describe, expect, it } from 'vitest';
import { formatSales, localMinute } from '../../src/cli/format-sales.ts';
import type { SoldEntry } from '../../src/sales/sold-log.ts';

const at = (iso: string) => Date.parse(iso);
const entry = (e: Partial<SoldEntry>): SoldEntry => ({
  kind: 'item',
  external_id: 'x',
  id: 1,
  status: 'sold',
  sale_key: 'k',
  title: null,
  price: null,
  currency: null,
  sold_at: '2026-11-28T10:00:00.000Z',
  sold_at_source: 'seen',
  seen_at: '2026-11-28T10:00:00.000Z',
  ...e,
});

describe('formatSales', () => {
  it('says there was none, and since when, instead of printing nothing', () => {
    expect(formatSales([], at('2026-11-27T10:00:00Z'), false)).toBe(
      `No sales since ${localMinute(at('2026-11-27T10:00:00Z'))}.\n`,
    );
  });

  it('names each offer with its title, what sold and its price as money', () => {
    const text = formatSales(
      [
        {
          seller: 'eu',
          seenAt: at('2026-11-28T10:00:00Z'),
          entry: entry({ kind: 'account', external_id: 'LOL-001', title: 'EUW Diamond IV', price: 8900 }),
        },
        {
          seller: 'eu',
          seenAt: at('2026-11-28T11:00:00Z'),
          entry: entry({ external_id: 'gold-1', title: 'Gold 1000', price: 2499, quantity: 3 }),
        },
        {
          seller: 'eu',
          seenAt: at('2026-11-28T12:00:00Z'),
          entry: entry({ kind: 'topup', external_id: 'gems-1', quantity: 1, price: 949, currency: 'EUR' }),
        },
      ],
      at('2026-11-27T10:00:00Z'),
      false,
    );
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SEEN\s+KIND\s+EXTERNAL_ID\s+TITLE\s+SOLD\s+PRICE$/);
    expect(lines[1]).toMatch(/account\s+LOL-001\s+EUW Diamond IV\s+sold\s+89\.00$/);
    expect(lines[2]).toMatch(/item\s+gold-1\s+Gold 1000\s+3 units\s+24\.99$/);
    expect(lines[3]).toMatch(/topup\s+gems-1\s+1 unit\s+9\.49 EUR$/);
    expect(lines[4]).toBe(`3 sale(s), 5 unit(s) or account(s), since ${localMinute(at('2026-11-27T10:00:00Z'))}.`);
  });

  it('names the seller when there are several, and escapes what a title may hide', () => {
    const text = formatSales(
      [{ seller: 'us-shop', seenAt: 0, entry: entry({ title: 'evil\u001b[2Jtitle' }) }],
      0,
      true,
    );
    expect(text.split('\n')[0]).toMatch(/^SEEN\s+SELLER\s+KIND/);
    expect(text).toContain('us-shop');
    expect(text).not.toContain('\u001b');
  });
});
