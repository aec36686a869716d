// The pure half of offersync pull: a live offer to the catalogue record that reads back as the same offer.
import { describe, expect, it } from 'vitest';
import { formatRecords } from '../../src/catalogue/format-records.ts';
import { parseFile } from '../../src/catalogue/formats.ts';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import { type CatalogueRecord, priceText, pulledOffer, pullKind } from '../../src/sync/pulled-offer.ts';

const offer = (id: number, externalId: string, status: string, fields: Record<string, unknown>): RemoteOffer => ({
  id,
  externalId,
  status,
  fields,
});

describe('pulledOffer', () => {
  it('writes prices in major units, ranks as the catalogue writes them, and only what the marketplace returned', () => {
    const v = pulledOffer(
      'account',
      offer(7, 'acc-1', 'listed', {
        title: 'Gold',
        price: 2000,
        current_rank: 'gold',
        current_division: 'II',
        level: 30,
        image_ids: [3, 1],
        flex_lp: null,
        image_urls: [],
        platform_account_id: 99,
      }),
    );
    expect(v).toEqual({
      type: 'record',
      record: {
        external_id: 'acc-1',
        title: 'Gold',
        price: '20.00',
        current_rank: 'gold',
        current_division: 'II',
        level: 30,
        image_ids: [3, 1],
        status: 'listed',
      },
      dropped: [],
    });
  });

  it('leaves out a field the catalogue would read otherwise, and says so', () => {
    const v = pulledOffer('item', offer(1, 'i-1', 'listed', { title: 'Gold', price: 150, type: '  padded  ' }));
    expect(v.type).toBe('record');
    if (v.type !== 'record') return;
    expect(v.record).toEqual({ external_id: 'i-1', title: 'Gold', price: '1.50', status: 'listed' });
    expect(v.dropped).toEqual([
      { field: 'type', reason: 'the catalogue would read "  padded  " as "padded"', offers: 1 },
    ]);
  });

  it('leaves out an offer whose title would not read back, a locked one, and one with a status no entry states', () => {
    expect(pulledOffer('item', offer(1, 'i', 'listed', { title: ' T', price: 1 }))).toMatchObject({
      type: 'left-out',
      reason: expect.stringContaining('its title would not read back'),
    });
    expect(pulledOffer('account', offer(2, 'a', 'sold', { title: 'T', price: 1 }))).toMatchObject({
      type: 'left-out',
      reason: expect.stringContaining("sold on the marketplace: the marketplace's own"),
    });
    expect(pulledOffer('topup', offer(3, 't', 'paused', { price: 1 }))).toMatchObject({
      type: 'left-out',
      reason: "status 'paused', which a catalogue entry cannot state (draft, pending, listed, archived)",
      todo: 'change its status on the website to one of those, then pull again',
    });
  });
});

describe('pullKind', () => {
  it('keeps the lower id of an external_id listed twice and lists the other with what to do', () => {
    const p = pullKind('item', [
      offer(9, 'dup', 'listed', { title: 'B', price: 100 }),
      offer(4, 'dup', 'listed', { title: 'A', price: 100 }),
    ]);
    expect(p.records.map((r) => r.title)).toEqual(['A']);
    expect(p.leftOut).toEqual([
      expect.objectContaining({
        id: 9,
        todo: 'archive id 9 on the website, or give it an external_id of its own and pull again',
      }),
    ]);
  });

  it('warns of an offer left out that the prune policy owns: the next reconcile would archive it', () => {
    const offers = [
      offer(1, 'own-1', 'flying', { title: 'T', price: 100 }),
      offer(2, 'own-2', 'sold', { title: 'T', price: 100 }),
      offer(3, 'other', 'flying', { title: 'T', price: 100 }),
    ];
    const p = pullKind('account', offers, (id) => id.startsWith('own-'));
    expect(p.leftOut.map((o) => [o.externalId, o.archivedNextRun])).toEqual([
      ['own-1', true],
      ['own-2', false],
      ['other', false],
    ]);
  });

  it('names the catalogue fields the marketplace did not return at all (a null is returned)', () => {
    const p = pullKind('item', [offer(1, 'i', 'listed', { title: 'T', price: 100, stock: null })]);
    expect(p.notReturned).toEqual(['type', 'game', 'server', 'description']);
  });
});

describe('priceText', () => {
  it.each([
    [1999, '19.99'],
    [2000, '20.00'],
    [5, '0.05'],
    [123456, '1234.56'],
  ])('%i cents is %s', (cents, text) => expect(priceText(cents)).toBe(text));
});

describe('formatRecords reads back', () => {
  const records: CatalogueRecord[] = [
    { external_id: 'a,1', title: 'Quote " and, comma', price: '19.99', image_ids: [1, 2], active: true },
    { external_id: 'b', title: ' lead', price: '20.00' },
  ];
  it.each(['csv', 'json', 'ndjson', 'yaml'] as const)('%s', (format) => {
    const parsed = parseFile(format, formatRecords(format, records));
    const values = parsed.records.map((r) => r.value as Record<string, unknown>);
    expect(values[0]).toMatchObject({ external_id: 'a,1', title: 'Quote " and, comma', price: '19.99' });
    expect(values[1]).toMatchObject({ external_id: 'b', title: ' lead', price: '20.00' });
    expect(String(values[0]!.image_ids)).toBe('1,2');
  });
});
