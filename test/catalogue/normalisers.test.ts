// The normaliser of each kind as tables: a record in, the typed offer out, or the problems that keep it out, each
// naming the file, the external_id, the field and what to do. And every field of a kind's table reaches its typed
// offer, so the table (which also makes the JSON Schema) and the normaliser cannot drift apart.
import { describe, expect, it } from 'vitest';
import { ACCOUNT_FIELDS, CREDENTIAL_FIELDS } from '../../src/catalogue/account-schema.ts';
import type { OfferKind } from '../../src/catalogue/desired-offer.ts';
import type { FieldSpec, FieldTable } from '../../src/catalogue/field-spec.ts';
import { ITEM_FIELDS } from '../../src/catalogue/item-schema.ts';
import { normaliseAccount } from '../../src/catalogue/normalise-account.ts';
import { normaliseItem } from '../../src/catalogue/normalise-item.ts';
import { normaliseTopUp } from '../../src/catalogue/normalise-topup.ts';
import { NORMALISERS, normaliseRecord } from '../../src/catalogue/normalise.ts';
import { TOPUP_FIELDS } from '../../src/catalogue/topup-schema.ts';

const FILE = 'x/offers.json';
const normalise = (kind: OfferKind, value: unknown) => normaliseRecord(kind, { value, pointer: '/0' }, FILE);

describe('valid records become typed offers', () => {
  it.each<[OfferKind, Record<string, unknown>, Record<string, unknown>]>([
    ['item', { external_id: ' i-1 ', title: ' Skin ', price: '19.99' }, { title: 'Skin', price: 1999 }],
    [
      'item',
      { external_id: 'i-2', title: 'Pack', price: 5, stock: '7', type: 'gold', status: 'Pending', game: ' ' },
      { title: 'Pack', price: 5, stock: 7, type: 'gold', status: 'pending' },
    ],
    ['topup', { external_id: 't-1', offer_title: 'Gems' }, { offer_title: 'Gems' }],
    [
      'topup',
      {
        external_id: 't-2',
        offer_title: 'Gems',
        offer_amount: '100',
        waiting_time_unit: 'min',
        active: 'no',
        status: 'Draft',
        price: 1.5,
      },
      {
        offer_title: 'Gems',
        offer_amount: 100,
        waiting_time_unit: 'minutes',
        active: false,
        status: 'draft',
        price: 150,
      },
    ],
    [
      'account',
      { external_id: 'a-1', title: 'Acc', price: 1000, rank: 'Gold II', champions: 'Ahri, Lux', image_ids: '3' },
      {
        title: 'Acc',
        price: 1000,
        current_rank: 'gold',
        current_division: 'II',
        champions: ['Ahri', 'Lux'],
        image_ids: [3],
      },
    ],
    [
      'account',
      { external_id: 'a-2', title: 'Acc', price: 1, parameters: {}, ign: 'Nick', flex_rank: 4, flex_division: 'iv' },
      { title: 'Acc', price: 1, parameters: {}, in_game_name: 'Nick', flex_rank: 4, flex_division: 'IV' },
    ],
    [
      'account',
      {
        external_id: 'a-3',
        title: 'Acc',
        price: 1,
        game_data: { rank: 'silver_1', note: ' n ', nested: { a: [1, null] } },
      },
      { title: 'Acc', price: 1, parameters: { rank: 'silver I', note: 'n', nested: { a: [1, null] } } },
    ],
  ])('%s %j', (kind, value, fields) => {
    const r = normalise(kind, value);
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(r.valid && r.offer.kind).toBe(kind);
    // Exactly these fields, keys sorted (the content hash is taken over them as they are).
    expect(r.offer?.fields).toStrictEqual(fields);
    expect(Object.keys(r.offer?.fields ?? {})).toEqual(Object.keys(fields).sort());
  });

  it('an account keeps its credentials and gallery apart from its fields', () => {
    const r = normaliseAccount(
      {
        value: {
          external_id: 'a',
          title: 'T',
          price: 1,
          login: 'me',
          credentials: { password: ' p ' },
          images: ['images/a.png'],
        },
        pointer: '/0',
      },
      FILE,
    );
    expect(r.offer?.credentials).toStrictEqual({ login: 'me', password: ' p ' });
    expect(r.offer?.images).toEqual([
      { path: 'images/a.png', field: 'images', at: ['images', 0], pointer: '/0/images/0' },
    ]);
    expect(r.offer?.fields).toStrictEqual({ title: 'T', price: 1 });
  });
});

describe('invalid records give problems that say where and what to do', () => {
  it.each<[OfferKind, unknown, { field?: string; externalId?: string; pointer?: string; message: RegExp }[]]>([
    ['item', 'a string', [{ pointer: '/0', message: /expected an offer \(an object with external_id, \.\.\.\), got/ }]],
    [
      'item',
      { title: 'T', price: 1 },
      [{ field: 'external_id', pointer: '/0/external_id', message: /external_id is required.*it is missing/ }],
    ],
    [
      'item',
      { external_id: 'i', title: 'T' },
      [{ field: 'price', externalId: 'i', pointer: '/0/price', message: /price is required: Integer cents/ }],
    ],
    [
      'item',
      { external_id: 'i', title: 'T', price: 'cheap', stock: -1 },
      [
        { field: 'price', externalId: 'i', message: /expected integer cents \(1999\).*got 'cheap'/ },
        { field: 'stock', externalId: 'i', message: /expected a whole number of at least 0, got -1/ },
      ],
    ],
    [
      'topup',
      { external_id: 't', offer_title: 'Gems', waiting_time_unit: 'weeks', active: 'maybe' },
      [
        { field: 'waiting_time_unit', externalId: 't', message: /expected one of minutes, hours, days, got 'weeks'/ },
        { field: 'active', externalId: 't', message: /expected true or false/ },
      ],
    ],
    [
      'account',
      { external_id: 'a', title: 'T', price: 1, rank: 'gold', current_rank: 'silver' },
      [{ field: 'current_rank', externalId: 'a', message: /gives current_rank a second time and disagrees.*keep one/ }],
    ],
    [
      'account',
      { external_id: 'a', title: 'T', price: 1, status: 'sold-out', parameters: [] },
      [
        { field: 'status', externalId: 'a', message: /expected one of draft, .*got 'sold-out'/ },
        { field: 'parameters', externalId: 'a', message: /expected an object of account details/ },
      ],
    ],
  ])('%s %j', (kind, value, problems) => {
    const r = normalise(kind, value);
    expect(r.valid).toBe(false);
    expect(r.offer).toBeUndefined();
    const errors = r.problems.filter((p) => p.severity === 'error');
    expect(errors).toEqual(
      problems.map(({ message, ...at }) =>
        expect.objectContaining({ file: FILE, kind, ...at, message: expect.stringMatching(message) }),
      ),
    );
  });
});

/** A value each field type accepts. */
function sample(spec: FieldSpec): unknown {
  switch (spec.type) {
    case 'string':
      return 'x';
    case 'int':
      return (spec.min ?? 0) + 1;
    case 'price':
      return 100;
    case 'bool':
      return true;
    case 'enum':
      return spec.values?.[0];
    case 'rank':
      return 'gold';
    case 'division':
      return 'II';
    case 'list':
    case 'urls':
      return ['a'];
    case 'image_ids':
      return [1];
    case 'parameters':
      return { note: 'x' };
    case 'images':
    case 'credentials':
      return undefined;
    default:
      return spec.type satisfies never;
  }
}

describe('every field of a kind table reaches its typed offer', () => {
  const tables: [OfferKind, FieldTable][] = [
    ['account', ACCOUNT_FIELDS],
    ['item', ITEM_FIELDS],
    ['topup', TOPUP_FIELDS],
  ];
  it.each(tables)('%s', (kind, table) => {
    const own = Object.entries(table).filter(
      ([name, spec]) => name !== 'external_id' && !spec.target && sample(spec) !== undefined,
    );
    const value = Object.fromEntries([['external_id', 'e'], ...own.map(([name, spec]) => [name, sample(spec)])]);
    const r = NORMALISERS[kind]({ value, pointer: '' }, FILE);
    expect(r.problems).toEqual([]);
    expect(Object.keys(r.offer?.fields ?? {}).sort()).toEqual(own.map(([name]) => name).sort());
  });

  it('account credentials, each of them', () => {
    const value = {
      external_id: 'e',
      title: 'T',
      price: 1,
      credentials: { login: 'l', password: 'p', email_login: 'el', email_password: 'ep' },
    };
    const r = normaliseAccount({ value, pointer: '' }, FILE);
    expect(Object.keys(r.offer?.credentials ?? {}).sort()).toEqual(Object.keys(CREDENTIAL_FIELDS).sort());
  });

  it('each kind has its own normaliser', () => {
    expect(NORMALISERS).toEqual({ account: normaliseAccount, item: normaliseItem, topup: normaliseTopUp });
  });
});
