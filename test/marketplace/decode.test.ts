// Tolerant decoding (docs/architecture.md, Decoding): every accepted form, and the refusals.
import { describe, expect, it } from 'vitest';
import {
  DecodeError,
  decodeBoolean,
  decodeField,
  decodeInteger,
  decodeListBody,
  decodeOffer,
  decodeImage,
  decodeString,
  decodeTimestamp,
  unwrapSingle,
} from '../../src/marketplace/decode.ts';
import { decodeBulkRemove } from '../../src/marketplace/accounts.ts';
import { decodeArchive } from '../../src/marketplace/archive-answer.ts';
import { decodeBulkAnswer, decodeBulkUpdate } from '../../src/marketplace/bulk-outcomes.ts';
import { decodeImageDelete } from '../../src/marketplace/images.ts';

const T = Date.UTC(2024, 0, 2, 3, 4, 5); // 2024-01-02T03:04:05Z

describe('decodeTimestamp', () => {
  it.each([
    ['ISO with Z', '2024-01-02T03:04:05Z', T],
    ['ISO with microseconds', '2024-01-02T03:04:05.000000Z', T],
    ['ISO with offset', '2024-01-02T05:04:05+02:00', T],
    ['ISO without zone is UTC', '2024-01-02T03:04:05', T],
    ['SQL datetime is UTC', '2024-01-02 03:04:05', T],
    ['epoch seconds', T / 1000, T],
    ['epoch seconds as string', String(T / 1000), T],
    ['epoch ms', T, T],
    ['epoch ms as string', String(T), T],
    ['date only', '2024-01-02', Date.UTC(2024, 0, 2)],
    ['garbage', 'yesterday-ish', undefined],
    ['object', { date: 'x' }, undefined],
    ['null', null, undefined],
    ['boolean', true, undefined],
  ])('%s', (_name, input, expected) => {
    expect(decodeTimestamp(input)).toBe(expected);
  });
});

describe('decodeInteger', () => {
  it.each([
    [12, 12],
    ['12', 12],
    [' 7 ', 7],
    ['-3', -3],
    [1.5, undefined],
    ['1.5', undefined],
    ['12abc', undefined],
    ['', undefined],
    [null, undefined],
    ['99999999999999999999', undefined],
  ])('%j -> %j', (input, expected) => {
    expect(decodeInteger(input)).toBe(expected);
  });
});

describe('decodeString and decodeBoolean', () => {
  it.each([
    ['lol', 'lol'],
    [{ slug: 'lol', name: 'League of Legends' }, 'lol'],
    [{ name: 'League of Legends' }, 'League of Legends'],
    [42, '42'],
    [{ id: 3 }, undefined],
    [null, undefined],
  ])('string %j -> %j', (input, expected) => {
    expect(decodeString(input)).toBe(expected);
  });
  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['1', true],
    ['false', false],
    ['yes', undefined],
  ])('boolean %j -> %j', (input, expected) => {
    expect(decodeBoolean(input)).toBe(expected);
  });
});

describe('decodeField', () => {
  it.each([
    ['integer from string', 'integer', '1999', 1999],
    ['integer that is not one stays as sent', 'integer', 19.99, 19.99],
    ['string from object', 'string', { slug: 'lol', name: 'LoL' }, 'lol'],
    ['string or integer kept as sent', 'stringOrInteger', '5', '5'],
    ['string or integer from object', 'stringOrInteger', { name: 'Gold' }, 'Gold'],
    ['integer array of strings', 'integerArray', ['1', 2], [1, 2]],
    ['integer array of objects', 'integerArray', [{ id: 1 }, { image_id: '2' }], [1, 2]],
    ['integer array as comma list', 'integerArray', '1, 2,3', [1, 2, 3]],
    ['string array of numbers', 'stringArray', ['a', 1], ['a', '1']],
    ['string or string array', 'stringOrStringArray', 'Ahri, Zed', 'Ahri, Zed'],
    ['object from JSON text', 'object', '{"rank":"gold"}', { rank: 'gold' }],
    ['object kept', 'object', { rank: 'gold' }, { rank: 'gold' }],
    ['boolean from 0', 'boolean', 0, false],
    ['null stays null', 'integer', null, null],
  ] as const)('%s', (_name, type, input, expected) => {
    expect(decodeField(type, input)).toEqual(expected);
  });
});

describe('unwrapSingle', () => {
  it('takes a bare object', () => expect(unwrapSingle({ id: 1 })).toEqual({ id: 1 }));
  it('unwraps data', () => expect(unwrapSingle({ data: { id: 1 } })).toEqual({ id: 1 }));
  it.each([
    ['an array', [{ id: 1 }]],
    ['a string', 'ok'],
    ['null', null],
    ['nothing', undefined],
  ])('refuses %s', (_name, body) => {
    expect(() => unwrapSingle(body)).toThrow(DecodeError);
  });
});

describe('decodeOffer', () => {
  const account = {
    id: '12',
    external_id: 'acc-1',
    platform_account_id: '900',
    title: 'Gold account',
    price: '1999',
    status: 'listed',
    created_at: '2024-01-02 03:04:05',
    updated_at: T / 1000,
    sold_at: null,
    game: { slug: 'lol', name: 'League of Legends' },
    image_ids: ['5', 6],
    credentials: { login: 'me', password: 'secret' },
    password: 'secret',
    unknown_field: 'ignored',
  };

  it('decodes every tolerant form into RemoteOffer', () => {
    expect(decodeOffer('accounts', account)).toEqual({
      id: 12,
      externalId: 'acc-1',
      status: 'listed',
      createdAt: T,
      updatedAt: T,
      soldAt: null,
      fields: { platform_account_id: 900, title: 'Gold account', price: 1999, game: 'lol', image_ids: [5, 6] },
    });
  });

  it('never keeps credentials or unknown fields', () => {
    const fields = decodeOffer('accounts', account).fields;
    expect(Object.keys(fields)).not.toContain('credentials');
    expect(Object.keys(fields)).not.toContain('password');
    expect(Object.keys(fields)).not.toContain('unknown_field');
  });

  it('keeps absent fields absent', () => {
    const o = decodeOffer('items', { id: 1, external_id: 'x' });
    expect(o).toEqual({ id: 1, externalId: 'x', fields: {} });
    expect('status' in o).toBe(false);
    expect('updatedAt' in o).toBe(false);
  });

  it('uses the field table of the kind', () => {
    const t = decodeOffer('top-ups', {
      id: 1,
      external_id: 'x',
      active: '1',
      offer_amount: '500',
      stock: 3,
      type: 'not a top-up field',
    });
    expect(t.fields).toEqual({ active: true, offer_amount: 500, stock: 3 });
  });

  it("reads a top-up's real names as the document's: title, amount (a float or integer), unit, image_url", () => {
    const real = { id: 1, external_id: 'x', title: 'Gems', amount: 12.5, unit: 'gems', image_url: 'https://i/1.png' };
    expect(decodeOffer('top-ups', real).fields).toEqual({
      offer_title: 'Gems',
      offer_amount: 12.5,
      offer_unit: 'gems',
      image: 'https://i/1.png',
    });
    expect(decodeOffer('top-ups', { id: 1, external_id: 'x', amount: '1000.00' }).fields).toEqual({
      offer_amount: 1000,
    });
    // The document's name, where both are echoed, is the one kept; other kinds keep `title` as their own.
    expect(decodeOffer('top-ups', { id: 1, external_id: 'x', offer_title: 'A', title: 'B' }).fields).toEqual({
      offer_title: 'A',
    });
    expect(decodeOffer('items', { id: 1, external_id: 'x', title: 'Sword' }).fields).toEqual({ title: 'Sword' });
  });

  it('takes a numeric external_id as its string', () => {
    expect(decodeOffer('items', { id: 1, external_id: 12345 }).externalId).toBe('12345');
  });

  it.each([
    ['no id', { external_id: 'x' }],
    ['id not an integer', { id: 'abc', external_id: 'x' }],
    ['fractional id', { id: 1.5, external_id: 'x' }],
    ['no external_id', { id: 1 }],
    ['external_id an object', { id: 1, external_id: { v: 'x' } }],
  ])('refuses an object with %s', (_name, o) => {
    expect(() => decodeOffer('accounts', o)).toThrow(DecodeError);
  });

  it('skips (in lists) an offer without external_id', () => {
    expect(decodeOffer('accounts', { id: 1, external_id: null }, true)).toBeUndefined();
    expect(() => decodeOffer('accounts', { external_id: 'x' }, true)).toThrow(DecodeError);
  });
});

describe('decodeImage', () => {
  it('reads id, else image_id, and the list-only fields', () => {
    expect(
      decodeImage({
        image_id: '7',
        url: 'u',
        filename: 'f.png',
        mime_type: 'image/png',
        original_name: 'o.png',
        size_bytes: '10',
        created_at: 1700000000,
      }),
    ).toEqual({
      id: 7,
      url: 'u',
      filename: 'f.png',
      mimeType: 'image/png',
      originalName: 'o.png',
      sizeBytes: 10,
      createdAt: 1700000000,
    });
  });
  it('refuses an image without id', () => expect(() => decodeImage({ url: 'u' })).toThrow(DecodeError));
});

describe('decodeListBody', () => {
  it('reads data, meta and links', () => {
    expect(
      decodeListBody({
        data: [1],
        meta: { current_page: '2', last_page: 3, per_page: 7 },
        links: { next: '/x?page=3' },
      }),
    ).toEqual({
      data: [1],
      currentPage: 2,
      lastPage: 3,
      perPage: 7,
      next: '/x?page=3',
    });
  });
  it('reads links.next null as "no more"', () =>
    expect(decodeListBody({ data: [], links: { next: null } }).next).toBeNull());
  it('leaves next undefined when links do not say', () =>
    expect('next' in decodeListBody({ data: [], links: {} })).toBe(false));
  it('takes a bare array', () => expect(decodeListBody([1, 2])).toEqual({ data: [1, 2] }));
  it('takes data wrapped twice', () =>
    expect(decodeListBody({ data: { data: [1], meta: { last_page: 1 } } }).data).toEqual([1]));
  it('takes top-level paging fields', () =>
    expect(decodeListBody({ data: [], current_page: 1, last_page: 4 }).lastPage).toBe(4));
  it.each([
    ['an object without data', { items: [] }],
    ['data that is not an array', { data: { id: 1 } }],
    ['a string', '<html>'],
    ['nothing', undefined],
  ])('refuses %s', (_name, body) => {
    expect(() => decodeListBody(body)).toThrow(DecodeError);
  });
});

describe('answers of archive, bulk-remove, image delete', () => {
  it.each([
    [{ success: true, archived: true }, true],
    [{ success: true, archived: false }, false],
    [{ success: true }, true],
    [{ data: { id: 1, status: 'archived' } }, true],
    [{ id: 1, status: 'listed' }, false],
    [undefined, true],
  ])('archive %j -> archived %j', (body, archived) => {
    expect(decodeArchive(body)).toEqual({ archived });
  });
  it('refuses an archive answer that says nothing', () => expect(() => decodeArchive({ ok: 1 })).toThrow(DecodeError));
  it('reads bulk-remove counts, numeric strings too', () => {
    expect(decodeBulkRemove({ success: true, processed: '3', removed: 2, not_found: 1 })).toEqual({
      success: true,
      processed: 3,
      removed: 2,
      notFound: 1,
    });
  });
  it("reads the real bulk-remove's counts under data", () => {
    const real = {
      message: 'Bulk remove completed.',
      data: { archived_count: 2, already_sold_count: 1, not_found_count: 0 },
    };
    expect(decodeBulkRemove(real)).toEqual({ success: true, removed: 2, notFound: 0 });
  });
  it('refuses a bulk-remove answer that is not an object', () =>
    expect(() => decodeBulkRemove([])).toThrow(DecodeError));
  it('reads an image delete', () =>
    expect(decodeImageDelete({ success: true, deleted_id: '4' })).toEqual({ success: true, deletedId: 4 }));
});

describe('decodeBulkUpdate', () => {
  it('reads per-offer outcomes under results', () => {
    const r = decodeBulkUpdate({
      results: [
        { external_id: 'a', success: true },
        { external_id: 'b', success: false, error: 'bad price' },
        { external_id: 'c', status: 'failed', message: 'no such offer' },
        { external_id: 'd', status: 200 },
        { external_id: 'e', id: 5, success: true },
      ],
    });
    expect(r.outcomes?.get('a')).toEqual({ ok: true });
    expect(r.outcomes?.get('b')).toEqual({ ok: false, message: 'bad price' });
    expect(r.outcomes?.get('c')).toEqual({ ok: false, message: 'no such offer' });
    expect(r.outcomes?.get('d')?.ok).toBe(true);
    expect(r.outcomes?.get('e')).toEqual({ ok: true });
  });
  it('reads the sandbox form: status as the outcome, never as the offer status', () => {
    const r = decodeBulkUpdate({
      success: true,
      updated: 1,
      not_found: 1,
      results: [
        { external_id: 'a', id: 1, status: 'updated' },
        { external_id: 'zz', id: null, status: 'not_found' },
      ],
    });
    expect(r.outcomes?.get('a')).toEqual({ ok: true });
    expect(r.outcomes?.get('zz')).toEqual({ ok: false, message: 'not_found' });
  });
  it('reads offers echoed under data as successes carrying the offer', () => {
    const r = decodeBulkUpdate({ data: [{ id: 3, external_id: 'a', status: 'listed', price: '100' }] });
    expect(r.outcomes?.get('a')).toEqual({
      ok: true,
      offer: { id: 3, externalId: 'a', status: 'listed', fields: { price: 100 } },
    });
  });
  it('reads errors objects as failures', () => {
    const r = decodeBulkUpdate({ offers: [{ external_id: 'a', errors: { price: ['must be positive'] } }] });
    expect(r.outcomes?.get('a')).toEqual({ ok: false, message: 'price: must be positive' });
  });
  it.each([
    ['counts only', { success: true, updated: 3 }],
    ['elements without external_id', { results: [{ ok: true }] }],
    ['nothing', undefined],
  ])('has no outcomes for %s', (_name, body) => {
    const r = decodeBulkUpdate(body);
    expect(r.outcomes).toBeUndefined();
    expect(r.body).toEqual(body);
  });
  it.each([
    ['top level', { success: true, updated: 3, not_found: 1, invalid: 0 }, { updated: 3, notFound: 1, failed: 0 }],
    ['numeric strings under data', { data: { updated: '2' } }, { updated: 2 }],
    ['under meta', { meta: { updated_count: 5, failed: 1 } }, { updated: 5, failed: 1 }],
    ['none', { success: true }, undefined],
    [
      'the real answer, updated[] beside updated_count',
      { message: 'Bulk update completed.', data: { updated_count: 2, not_found_count: 0, updated: [], not_found: [] } },
      { updated: 2, notFound: 0 },
    ],
  ])('reads the counts: %s', (_name, body, counts) => {
    expect(decodeBulkUpdate(body).counts).toEqual(counts);
  });
  it("reads the real answer's rows by id: updated[] as the offers stored, not_found[] as named", () => {
    const r = decodeBulkAnswer('top-ups', {
      message: 'Bulk update completed.',
      data: {
        updated_count: 1,
        not_found_count: 2,
        updated: [{ id: 11, external_id: 'web-made', title: 'Old', amount: 12.5, price: '500', status: 'listed' }],
        not_found: [12, 'gone'],
      },
    });
    expect(r.rows).toEqual([
      {
        id: 11,
        externalId: 'web-made',
        ok: true,
        offer: {
          id: 11,
          externalId: 'web-made',
          status: 'listed',
          fields: { offer_title: 'Old', offer_amount: 12.5, price: 500 },
        },
      },
      { id: 12, ok: false, message: 'not_found' },
      { externalId: 'gone', ok: false, message: 'not_found' },
    ]);
  });
  it("reads a real bulk-remove's archived[] and its not_found by kind of identifier", () => {
    const r = decodeBulkAnswer('items', {
      message: 'Bulk remove completed.',
      data: {
        archived_count: 1,
        not_found_count: 1,
        archived: [{ id: 3, external_id: 'a', status: 'archived' }],
        not_found: { external_ids: [], lolboost_item_ids: [9] },
      },
    });
    expect(r.counts).toEqual({ removed: 1, notFound: 1 });
    expect(r.rows?.map((row) => [row.id, row.ok])).toEqual([
      [3, true],
      [9, false],
    ]);
  });
});

describe('sold counts', () => {
  it.each([
    // [kind, sold_count as sent, decoded]
    ['items', 4, 4],
    ['items', '4', 4],
    ['top-ups', ' 12 ', 12],
    ['items', 0, 0],
    ['items', -1, undefined],
    ['items', '4.5', undefined],
    ['items', null, undefined],
    ['accounts', 4, undefined],
  ] as const)('%s sold_count %j decodes as %j', (kind, sent, decoded) => {
    const offer = decodeOffer(kind, { id: '3', external_id: 'x', stock: '2', sold_count: sent });
    expect(offer.soldCount).toBe(decoded);
    if (kind !== 'accounts') expect(offer.fields.stock).toBe(2);
  });
});
