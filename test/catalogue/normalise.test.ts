// Normalisation tables: price, rank, division, image_ids forms, aliases, lists, legacy fields, suggestions.
import { describe, expect, it } from 'vitest';
import { normaliseRecord } from '../../src/catalogue/normalise.ts';
import type { Normalised, NormalisedOffer } from '../../src/catalogue/normalised-offer.ts';
import { parsePrice } from '../../src/catalogue/price.ts';
import { parseDivision, parseRank } from '../../src/catalogue/rank.ts';
import { suggest } from '../../src/catalogue/suggest.ts';

/** The typed offer of a record that must be valid. */
function offerOf<O extends NormalisedOffer>(r: Normalised<O>): O {
  if (!r.valid) throw new Error(`expected a valid record: ${r.problems.map((p) => p.message).join('; ')}`);
  return r.offer;
}

const account = (extra: Record<string, unknown>) =>
  normaliseRecord(
    'account',
    { value: { external_id: 'a', title: 'T', price: 100, ...extra }, pointer: '' },
    'accounts/a.json',
  );

describe('price (docs/architecture.md, Prices)', () => {
  it.each([
    [1999, 1999],
    [19.99, 1999],
    [0.1, 10],
    ['1999', 1999],
    ['19.99', 1999],
    [' 19.5 ', 1950],
    ['.5', 50],
    ['20.', 2000],
  ])('%j -> %i cents', (input, cents) => {
    expect(parsePrice(input)).toEqual({ cents });
  });
  it.each([[0], [-1], ['-19.99'], ['0.00'], [0.001]])('%j is not a price above zero', (input) => {
    expect(parsePrice(input)).toEqual({ error: expect.stringMatching(/greater than zero/) });
  });
  it.each([['19,99'], ['$5'], ['abc'], [null], [true], [[1]], [Number.NaN], ['1e3']])('%j is not a price', (input) => {
    expect(parsePrice(input)).toEqual({
      error: expect.stringMatching(/expected integer cents \(1999\) or a decimal amount/),
    });
  });
  it.each([
    ['24,99', 2499],
    ['1.299,00', 129900],
    ['12.345.678,9', 1234567890],
    ['0,5', 50],
    ['1999', 1999],
  ])('decimal comma (semicolon and tab CSV files): %j -> %i cents', (input, cents) => {
    expect(parsePrice(input, 'comma')).toEqual({ cents });
  });
  it.each([['24.99'], ['1.299'], ['1,299.00'], ['12.34,5']])('decimal comma: %j is refused, not guessed', (input) => {
    expect(parsePrice(input, 'comma')).toEqual({
      error: expect.stringMatching(/decimal comma: expected .* 1\.299,00/),
    });
  });
  it('a decimal comma where the mark is a point says where it is read', () => {
    expect(parsePrice('24,99')).toEqual({
      error: expect.stringMatching(/a decimal comma is read only in semicolon or tab separated CSV files/),
    });
  });
  it('more than two decimals: rounded, with a warning', () => {
    expect(parsePrice('1.999')).toEqual({ cents: 200, warning: expect.stringMatching(/rounded to 200 cents/) });
    expect(parsePrice(1.005)).toEqual({ cents: 100, warning: expect.stringMatching(/rounded to 100 cents/) });
  });
});

describe('rank and division', () => {
  it.each([
    ['Gold', { rank: 'gold' }],
    ['  PLATINUM ', { rank: 'platinum' }],
    ['grand master', { rank: 'grandmaster' }],
    ['Grandmaster', { rank: 'grandmaster' }],
    [7, { rank: 7 }],
    ['7', { rank: 7 }],
    ['Gold II', { rank: 'gold', division: 'II' }],
    ['gold_2', { rank: 'gold', division: 'II' }],
    ['PLATINUM-iv', { rank: 'platinum', division: 'IV' }],
    ['silver 1', { rank: 'silver', division: 'I' }],
    ['Emerald   iii', { rank: 'emerald', division: 'III' }],
    ['grand_master-1', { rank: 'grandmaster', division: 'I' }],
    // As sellers write them in sheets.
    ['gold2', { rank: 'gold', division: 'II' }],
    ['Plat 1', { rank: 'platinum', division: 'I' }],
    ['D4', { rank: 'diamond', division: 'IV' }],
    ['GM', { rank: 'grandmaster' }],
    ['Diamond 4 (75 LP)', { rank: 'diamond', division: 'IV', lp: 75 }],
    ['Unranked', { unranked: true }],
  ])('rank %j -> %j', (input, out) => {
    expect(parseRank(input)).toEqual(out);
  });
  it.each([['wood'], ['gold 5'], ['D'], ['x4'], [-1], [1.5], [true], ['']])('rank %j is an error', (input) => {
    expect(parseRank(input)).toHaveProperty('error');
  });
  it.each([
    ['I', 'I'],
    ['iv', 'IV'],
    [' iii ', 'III'],
    [2, 2],
    ['2', 2],
    [0, 0],
  ])('division %j -> %j', (input, division) => {
    expect(parseDivision(input)).toEqual({ division });
  });
  it.each([['V'], ['two'], [-1], [{}]])('division %j is an error', (input) => {
    expect(parseDivision(input)).toHaveProperty('error');
  });

  it('rank/division are aliases of current_rank/current_division; a combined value splits', () => {
    expect(offerOf(account({ rank: 'Gold II' })).fields).toMatchObject({
      current_rank: 'gold',
      current_division: 'II',
    });
    expect(offerOf(account({ rank: 'gold', division: 'ii' })).fields).toMatchObject({
      current_rank: 'gold',
      current_division: 'II',
    });
    expect(offerOf(account({ flex_rank: 'diamond_4', previous_rank: 3, previous_division: '2' })).fields).toMatchObject(
      {
        flex_rank: 'diamond',
        flex_division: 'IV',
        previous_rank: 3,
        previous_division: 2,
      },
    );
  });
  it('an alias and its field that disagree are an error; that agree are fine', () => {
    const bad = account({ rank: 'gold', current_rank: 'silver' });
    expect(bad.valid).toBe(false);
    expect(bad.problems.map((p) => [p.field, p.pointer])).toEqual([['current_rank', '/current_rank']]);
    expect(account({ rank: 'Gold', current_rank: 'gold' }).valid).toBe(true);
    expect(account({ rank: 'Gold II', division: 'III' }).valid).toBe(false);
  });
});

describe('image_ids: the four forms', () => {
  it.each([
    [[1, 2, 3]],
    ['1, 2,3'],
    [[{ id: 1 }, { id: 2 }, { id: 3 }]],
    [[{ image_id: 1 }, { image_id: 2 }, { image_id: 3 }]],
    [['1', '2', '3']],
  ])('%j -> [1, 2, 3]', (input) => {
    expect(offerOf(account({ image_ids: input })).fields.image_ids).toEqual([1, 2, 3]);
  });
  it.each([[[0]], ['1,x'], [[{ other: 1 }]], [{ id: 1 }], [[1.5]]])('%j is an error', (input) => {
    const r = account({ image_ids: input });
    expect(r.valid).toBe(false);
    expect(r.problems[0]!.field).toBe('image_ids');
  });
});

describe('aliases, lists, strings, legacy fields', () => {
  it('parameters and game_data merge into parameters; known keys normalised', () => {
    const r = account({ parameters: { level: '30', rank: 'Gold-2' }, game_data: { blue_essence: 100, note: ' x ' } });
    expect(offerOf(r).fields.parameters).toEqual({ level: 30, rank: 'gold II', blue_essence: 100, note: 'x' });
    const clash = account({ parameters: { level: 30 }, game_data: { level: 31 } });
    expect(clash.valid).toBe(false);
    expect(clash.problems[0]).toMatchObject({ field: 'game_data.level', pointer: '/game_data/level' });
  });
  it('champions, skins, roles: array or comma-separated string -> trimmed array', () => {
    expect(
      offerOf(account({ champions: ' Ahri, Lux ,,Jinx ', skins: ['  A ', 'B'], roles: 'mid' })).fields,
    ).toMatchObject({
      champions: ['Ahri', 'Lux', 'Jinx'],
      skins: ['A', 'B'],
      roles: ['mid'],
    });
  });
  it('strings are trimmed, empty is absent, absent stays absent, CRLF inside becomes LF', () => {
    const r = account({ title: '  Gold  ', description: 'a\r\nb\r\n', server: '   ', game: null });
    expect(offerOf(r).fields).toEqual({ title: 'Gold', price: 100, description: 'a\nb' });
  });
  it('top-level login/password/email_* move into credentials and ign into in_game_name, with warnings', () => {
    const r = account({
      login: ' me ',
      password: ' p w ',
      email_login: 'e@x.invalid',
      email_password: 'ep',
      ign: 'Nick',
    });
    expect(offerOf(r).credentials).toEqual({
      login: 'me',
      password: ' p w ',
      email_login: 'e@x.invalid',
      email_password: 'ep',
    });
    expect(offerOf(r).fields.in_game_name).toBe('Nick');
    expect(offerOf(r).fields).not.toHaveProperty('login');
    expect(r.problems.map((p) => [p.severity, p.field])).toEqual([
      ['warning', 'login'],
      ['warning', 'password'],
      ['warning', 'email_login'],
      ['warning', 'email_password'],
      ['warning', 'ign'],
    ]);
    expect(r.problems[0]!.message).toMatch(/moved to credentials.login/);
  });
  it('credentials given twice must agree', () => {
    expect(account({ credentials: { login: 'a' }, login: 'b' }).valid).toBe(false);
  });
  it('unknown fields are warnings with a suggestion', () => {
    const r = account({ prcie: 1, champoins: [], zzz: 1 });
    expect(r.valid).toBe(true);
    expect(r.problems.map((p) => p.message)).toEqual([
      "unknown field 'prcie': did you mean 'price'? (ignored)",
      "unknown field 'champoins': did you mean 'champions'? (ignored)",
      "unknown field 'zzz' (ignored)",
    ]);
    expect(suggest('titel', ['title', 'price'])).toBe('title');
  });
  it('a numeric external_id is taken as its string, with a warning', () => {
    const r = normaliseRecord('item', { value: { external_id: 42, title: 'T', price: 1 }, line: 3 }, 'items/a.ndjson');
    expect(r.externalId).toBe('42');
    expect(r.problems[0]).toMatchObject({ severity: 'warning', line: 3, field: 'external_id' });
  });
  it('status is left absent when not given, and checked per kind when given', () => {
    expect(offerOf(account({})).fields.status).toBeUndefined();
    expect(offerOf(account({ status: 'Listed' })).fields.status).toBe('listed');
    expect(account({ status: 'sold-out' }).valid).toBe(false);
    const t = (v: Record<string, unknown>) =>
      normaliseRecord('topup', { value: { external_id: 't', offer_title: 'T', ...v }, line: 1 }, 'top-ups/t.ndjson');
    expect(t({ status: 'processing' }).valid).toBe(false);
    expect(offerOf(t({ waiting_time_unit: 'Hour', active: 'yes', stock: '5' })).fields).toEqual({
      offer_title: 'T',
      waiting_time_unit: 'hours',
      active: true,
      stock: 5,
    });
    expect(t({ waiting_time_unit: 'weeks' }).problems[0]!.message).toMatch(/expected one of minutes, hours, days/);
    const i = normaliseRecord(
      'item',
      { value: { external_id: 'i', title: 'T', price: 1, status: 'Pending', stock: -1 }, line: 1 },
      'items/i.csv',
    );
    expect(i.problems.map((p) => p.field)).toEqual(['stock']);
    // The document lists no item statuses of their own: a word none of its statuses is, is an error, not a 422.
    const flying = normaliseRecord(
      'item',
      { value: { external_id: 'i', title: 'T', price: 1, status: 'flying' }, line: 1 },
      'items/i.csv',
    );
    expect(flying.problems[0]!.message).toMatch(
      /expected one of draft, pending, listed, processing, sold, refunded, archived, got 'flying'/,
    );
  });
});
