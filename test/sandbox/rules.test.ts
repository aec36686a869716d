// Table tests of the value rules, without HTTP.
import { describe, expect, it } from 'vitest';
import { parseImageIds } from '../../src/sandbox/image-ids.ts';
import { parsePriceCents } from '../../src/sandbox/price-rules.ts';
import { parseDivision, parseRank } from '../../src/sandbox/ranks.ts';
import { resolveOptions } from '../../src/sandbox/sandbox-options.ts';
import { isoMicros, MonotonicClock } from '../../src/sandbox/sandbox-clock.ts';

describe('parsePriceCents', () => {
  it.each([
    [1999, 1999],
    [19.99, 1999],
    ['19.99', 1999],
    ['19.9', 1990],
    ['19.995', 2000],
    ['19.994', 1999],
    [0.015, 2],
    ['.5', 50],
    ['100', 100],
    [' 7.25 ', 725],
    [-1, -1],
    ['-2.50', -250],
    [0, 0],
  ])('%j -> %j', (input, cents) => expect(parsePriceCents(input)).toBe(cents));
  it.each([['abc'], ['1,99'], ['1.2.3'], [''], [NaN], [Infinity], [null], [true], [{}], ['1e3']])(
    '%j is not a price',
    (input) => expect(parsePriceCents(input)).toBeUndefined(),
  );
});

describe('parseRank and parseDivision', () => {
  it.each([
    ['gold', { rank: 'gold' }],
    ['GOLD', { rank: 'gold' }],
    [1, { rank: 'iron' }],
    [10, { rank: 'challenger' }],
    ['6', { rank: 'emerald' }],
    ['gold_2', { rank: 'gold', division: 'II' }],
    ['Gold II', { rank: 'gold', division: 'II' }],
    ['PLATINUM-iv', { rank: 'platinum', division: 'IV' }],
    ['grandmaster i', { rank: 'grandmaster', division: 'I' }],
    ['silver  3', { rank: 'silver', division: 'III' }],
  ])('%j -> %j', (input, parsed) => expect(parseRank(input)).toEqual(parsed));
  it.each([['wood'], [0], [11], ['gold_5'], ['gold V'], ['gold2'], ['gold_ii_x'], [null], [2.5], ['']])(
    '%j is not a rank',
    (input) => expect(parseRank(input)).toBeUndefined(),
  );
  it.each([
    ['I', 'I'],
    ['iv', 'IV'],
    [3, 'III'],
    ['2', 'II'],
  ])('division %j -> %s', (input, d) => expect(parseDivision(input)).toBe(d));
  it.each([['V'], [0], [5], ['one'], [null]])('%j is not a division', (input) =>
    expect(parseDivision(input)).toBeUndefined(),
  );
});

describe('parseImageIds', () => {
  it.each([
    [
      [1, 2],
      [1, 2],
    ],
    ['1,2, 3', [1, 2, 3]],
    [[{ id: 4 }], [4]],
    [
      [{ image_id: 5 }, { image_id: 6 }],
      [5, 6],
    ],
    [[], []],
    ['', []],
  ])('%j -> %j', (input, ids) => expect(parseImageIds(input)).toEqual(ids));
  it.each([['1,a'], [[1.5]], [['1']], [[{ id: '1' }]], [[0]], [5], [null], [{ id: 1 }]])('%j is refused', (input) =>
    expect(parseImageIds(input)).toBeUndefined(),
  );
});

describe('options and clock', () => {
  it('rejects bad options naming them', () => {
    expect(() => resolveOptions({ apiKeys: [] })).toThrow(/apiKeys/);
    expect(() => resolveOptions({ faults: { errorRate: 1.5 } })).toThrow(/errorRate/);
    expect(() => resolveOptions({ rateLimit: { ratePerSec: 0, burst: 1 } })).toThrow(/ratePerSec/);
    expect(() => resolveOptions({ defaultPerPage: 200 })).toThrow(/defaultPerPage/);
    expect(resolveOptions()).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      apiKeys: ['sandbox-key'],
      rateLimit: null,
      maxJsonBytes: 1048576,
      defaultPerPage: 15,
      maxPerPage: 100,
    });
  });

  it('never gives the same timestamp twice', () => {
    const c = new MonotonicClock();
    const ts = Array.from({ length: 1000 }, () => c.next());
    expect(new Set(ts).size).toBe(1000);
    expect(ts.every((t, i) => i === 0 || t > ts[i - 1]!)).toBe(true);
    expect(isoMicros(1_700_000_000_123_456)).toBe('2023-11-14T22:13:20.123456Z');
  });
});
