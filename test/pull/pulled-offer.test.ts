// The pure half of offersync pull: a live offer to the catalogue record that reads back as the same offer.
import { describe, expect, it } from 'vitest';
import { formatRecords } from '../../src/catalogue/format-records.ts';
import { parseFile } from '../../src/catalogue/formats.ts';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import { type CatalogueRecord, priceText, pullableFields, pulledOffer, pullKind } from '../../src/pull/pulled-offer.ts';

const offer = (
  id: number,
  externalId: string,
  status: string | undefined,
  fields: Record<string, unknown>,
): RemoteOffer => ({
  id,
  externalId,
  ...(status !== undefined ? { status } : {}),
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

  it("writes a top-up's title, amount, unit and image as the client decodes them", () => {
    const v = pulledOffer(
      'topup',
      offer(4, 'tu-1', 'listed', {
        offer_title: '100 gems',
        offer_amount: 100,
        offer_unit: 'gems',
        image: 'https://cdn.example/gems.png',
        price: 199,
      }),
    );
    expect(v).toMatchObject({
      type: 'record',
      record: {
        offer_title: '100 gems',
        offer_amount: 100,
        offer_unit: 'gems',
        image: 'https://cdn.example/gems.png',
        price: '1.99',
      },
    });
  });

  it("writes an account's gallery as the files pull downloaded, never its image_ids or the gallery's urls", () => {
    const real = offer(7, 'acc-1', 'listed', {
      title: 'Gold',
      price: 2000,
      image_urls: ['/storage/gallery/1-a.png', '/storage/gallery/2-b.png'],
    });
    const files = () => ['images/aa.png', 'images/bb.png'];
    expect(pulledOffer('account', real, files)).toMatchObject({
      type: 'record',
      record: { external_id: 'acc-1', images: ['images/aa.png', 'images/bb.png'] },
    });
    const notDownloaded = pulledOffer('account', real);
    expect(notDownloaded.type === 'record' && notDownloaded.record).not.toHaveProperty('image_urls');
    const documented = offer(8, 'acc-2', 'listed', { title: 'Gold', price: 2000, image_ids: [3], image_urls: ['u'] });
    const v = pulledOffer('account', documented, () => ['images/cc.png']);
    expect(v.type === 'record' && v.record).toMatchObject({ images: ['images/cc.png'] });
    expect(v.type === 'record' && v.record).not.toHaveProperty('image_ids');
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

  it('writes only values worth writing: no empty text or list, nothing JSON cannot hold, booleans kept', () => {
    const item = pulledOffer('item', offer(1, 'i', 'listed', { title: 'T', price: 100, description: '', stock: 3 }));
    expect(item).toEqual({
      type: 'record',
      record: { external_id: 'i', title: 'T', price: '1.00', stock: 3, status: 'listed' },
      dropped: [],
    });
    const topUp = pulledOffer('topup', offer(2, 't', 'listed', { offer_title: 'T', price: 100, active: true }));
    expect(topUp).toMatchObject({ type: 'record', record: { offer_title: 'T', active: true } });
    // Values a JSON answer cannot carry, at the top or inside a list or an object: left unmanaged.
    for (const champions of [
      [1, Number.POSITIVE_INFINITY],
      ['Ahri', undefined],
      [() => 'Ahri'],
      [{ name: 'Ahri', mastery: Number.NaN }],
    ]) {
      const v = pulledOffer(
        'account',
        offer(3, 'a', 'listed', { title: 'T', price: 100, champions, level: Number.NaN }),
      );
      expect(v).toEqual({
        type: 'record',
        record: { external_id: 'a', title: 'T', price: '1.00', status: 'listed' },
        dropped: [],
      });
    }
  });

  it('leaves out an offer the catalogue cannot read, saying why', () => {
    const noTitle = pulledOffer('item', offer(1, 'i', 'listed', { price: 100 }));
    expect(noTitle).toEqual({
      type: 'left-out',
      reason: 'the catalogue cannot read what the marketplace holds: title is required: Title of the listing.',
      todo: 'fix the offer on the website, or add it to the catalogue by hand',
    });
    expect(pulledOffer('item', offer(1, 'i', 'listed', { price: -150 }))).toMatchObject({
      type: 'left-out',
      reason:
        'the catalogue cannot read what the marketplace holds: must be greater than zero, got -1.50; ' +
        'title is required: Title of the listing.',
    });
    // A null or an object in a list of names: JSON, but no catalogue entry states it.
    for (const [champions, what] of [
      [['Ahri', null], 'item 2 of the list: expected a string, got null'],
      [[{ name: 'Ahri' }], 'item 1 of the list: expected a string, got an object'],
    ] as const)
      expect(pulledOffer('account', offer(2, 'a', 'listed', { title: 'T', price: 100, champions }))).toMatchObject({
        type: 'left-out',
        reason: `the catalogue cannot read what the marketplace holds: ${what}`,
      });
  });

  it('leaves out an offer whose price or status would not read back, or that has no status', () => {
    expect(pulledOffer('item', offer(1, 'i', 'listed', { title: 'T', price: 19.5 }))).toEqual({
      type: 'left-out',
      reason: 'its price would not read back as the marketplace holds it (19.5)',
      todo: 'add it to the catalogue by hand',
    });
    expect(pulledOffer('item', offer(2, 'i', ' listed', { title: 'T', price: 100 }))).toEqual({
      type: 'left-out',
      reason: 'its status would not read back as the marketplace holds it (" listed")',
      todo: 'add it to the catalogue by hand',
    });
    for (const status of [undefined, ''])
      expect(pulledOffer('item', offer(3, 'i', status, { title: 'T', price: 100 }))).toEqual({
        type: 'left-out',
        reason: 'the marketplace gave no status',
        todo: 'add it to the catalogue by hand with the status it should have',
      });
    expect(pulledOffer('item', offer(4, 'i', 'refunded', { title: 'T', price: 100 }))).toMatchObject({
      type: 'left-out',
      todo: 'nothing: a reconcile records it in sold.jsonl',
    });
  });
});

describe('pullableFields', () => {
  it('every catalogue field but aliases, legacy names, gallery, credentials, parameters, external_id, status', () => {
    expect(pullableFields('item')).toEqual(['title', 'price', 'type', 'game', 'server', 'stock', 'description']);
    const account = pullableFields('account');
    expect(account).toEqual(
      expect.arrayContaining(['title', 'current_rank', 'champions', 'image_ids', 'in_game_name']),
    );
    for (const never of [
      'rank',
      'division',
      'game_data',
      'login',
      'ign',
      'credentials',
      'images',
      'parameters',
      'external_id',
      'status',
    ])
      expect(account).not.toContain(never);
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

  it('names an external_id listed twice, which the next reconcile leaves alone whoever owns it', () => {
    const p = pullKind(
      'item',
      [offer(9, 'dup', 'listed', { title: 'B', price: 100 }), offer(4, 'dup', 'listed', { title: 'A', price: 100 })],
      () => true,
    );
    expect(p.leftOut).toEqual([
      {
        kind: 'item',
        id: 9,
        externalId: 'dup',
        reason: 'external_id listed twice (ids 4 and 9); the catalogue holds id 4',
        todo: 'archive id 9 on the website, or give it an external_id of its own and pull again',
        archivedNextRun: false,
      },
    ]);
  });

  it("an offer left out is archived next run only when owned and neither archived nor the marketplace's own", () => {
    const bad = { title: ' T', price: 100 };
    const offers = [offer(1, 'listed', 'listed', bad), offer(2, 'archived', 'archived', bad)];
    expect(pullKind('account', offers, () => true).leftOut.map((o) => [o.externalId, o.archivedNextRun])).toEqual([
      ['listed', true],
      ['archived', false],
    ]);
    // Owned by nothing unless told.
    expect(pullKind('account', offers).leftOut.map((o) => o.archivedNextRun)).toEqual([false, false]);
  });

  it('counts the offers each note on a field stands for, and says once that game_data is left out', () => {
    const items = pullKind('item', [
      offer(1, 'i1', 'listed', { title: 'T', price: 100, type: ' x ', game_data: { a: 1 } }),
      offer(2, 'i2', 'listed', { title: 'T', price: 100, type: ' x ' }),
      offer(3, 'i3', 'listed', { title: 'T', price: 100, type: ' y ' }),
    ]);
    expect(items.notes).toEqual([
      { field: 'type', reason: 'the catalogue would read " x " as "x"', offers: 2 },
      { field: 'type', reason: 'the catalogue would read " y " as "y"', offers: 1 },
    ]);
    const accounts = pullKind('account', [
      offer(1, 'a1', 'listed', { title: 'T', price: 100, game_data: { level: 30 } }),
      offer(2, 'a2', 'listed', { title: 'T', price: 100, game_data: {} }),
      offer(3, 'a3', 'listed', { title: 'T', price: 100, game_data: null }),
    ]);
    expect(accounts.notes).toEqual([
      {
        field: 'parameters',
        reason:
          'echoed as game_data, not under the name it is sent by, so it is left out (its documented keys are ' +
          'the top-level fields: level, current_rank, ...); add it by hand to manage it',
        offers: 2,
      },
    ]);
  });

  it('says nothing of fields for a kind with no offer', () => {
    expect(pullKind('item', [])).toEqual({ kind: 'item', records: [], leftOut: [], notes: [], notReturned: [] });
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
    [0, '0.00'],
    [-150, '-1.50'],
    [-5, '-0.05'],
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
