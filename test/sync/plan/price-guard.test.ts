// The price guard as a table: which changes are suspect, the limit, and when a run stops.
import { describe, expect, it } from 'vitest';
import {
  isSuspectChange,
  type PriceChange,
  priceChangeLimit,
  priceVerdict,
  formatCents,
} from '../../../src/sync/plan/price-guard.ts';

const opts = { maxPriceChangePercent: 10, maxPriceChangeMin: 2 };
const change = (i: number, from: number, to: number): PriceChange => ({
  kind: 'item',
  externalId: `it-${String(i).padStart(2, '0')}`,
  from,
  to,
});

describe('price guard', () => {
  it.each([
    // [from, to, suspect]
    [2000, 20, true],
    [2000, 667, false],
    [2000, 666, true],
    [2000, 6000, true],
    [2000, 5999, false],
    [2000, 0, true],
    [0, 2000, false],
    [1999, 1999, false],
    [1999, 2499, false],
    [2000, -1, true],
    [-100, 2000, false],
    [-100, 0, false],
    [0, 0, false],
  ] as const)('%i -> %i cents is suspect: %s', (from, to, suspect) => {
    expect(isSuspectChange(from, to)).toBe(suspect);
  });

  it.each([
    // [priced offers, limit]
    [0, 2],
    [10, 2],
    [29, 2],
    [30, 3],
    [1000, 100],
  ] as const)('with %i priced offers the limit is %i', (priced, limit) => {
    expect(priceChangeLimit(priced, opts)).toBe(limit);
  });

  it.each([
    // [name, changes, priced, tripped, rule]
    ['every price divided by 100', Array.from({ length: 10 }, (_, i) => change(i, 2000, 20)), 10, true, 'share'],
    ['two suspect changes of ten', [change(1, 2000, 20), change(2, 100, 400)], 10, false, undefined],
    ['three suspect changes of ten', [change(1, 2000, 20), change(2, 100, 400), change(3, 5, 500)], 10, true, 'share'],
    ['many ordinary changes', Array.from({ length: 10 }, (_, i) => change(i, 2000, 2500)), 10, false, undefined],
    ['one price falls to zero', [change(1, 2000, 0)], 100, true, 'zero'],
  ] as const)('%s: tripped %s', (_name, changes, priced, tripped, rule) => {
    const verdict = priceVerdict(changes, priced, opts, false);
    expect(verdict.tripped).toBe(tripped);
    expect(verdict.rule).toBe(rule);
    expect(priceVerdict(changes, priced, opts, true).tripped).toBe(false);
  });

  it('names what it counted, the keys and the way through, and lists the suspect changes in order', () => {
    const changes = [change(3, 2000, 20), change(1, 1999, 19), change(2, 500, 5)];
    const verdict = priceVerdict(changes, 3, opts, false);
    expect(verdict.message).toMatch(/3 of 3 priced offers would change price by a factor of 3 or more/);
    expect(verdict.message).toMatch(/guard\.maxPriceChangePercent: 10%/);
    expect(verdict.message).toMatch(/--allow-price-change/);
    expect(verdict.suspect.map((c) => c.externalId)).toEqual(['it-01', 'it-02', 'it-03']);
    expect([formatCents(1999), formatCents(5), formatCents(0)]).toEqual(['19.99', '0.05', '0.00']);
  });
});

describe('what the price guard says', () => {
  it('prices falling to zero stop the run however few, named by count', () => {
    const one = priceVerdict([change(1, 2000, 0), change(2, 100, 150)], 100, opts, false);
    expect(one).toStrictEqual({
      tripped: true,
      priced: 100,
      suspect: [change(1, 2000, 0)],
      limit: 10,
      rule: 'zero',
      message:
        "price guard: 1 price would fall to zero. Nothing was sent. Check the catalogue's prices (an integer is " +
        'cents: 20 is 0.20); if the new prices are right, run again with --allow-price-change.',
    });
    const two = priceVerdict([change(1, 2000, 0), change(2, 100, -5)], 100, opts, false);
    expect(two.message).toMatch(/^price guard: 2 prices would fall to zero\. /);
  });

  it('too many suspect changes: the counts, the factor, the limit and both keys', () => {
    const changes = [change(3, 2000, 20), change(1, 1999, 19), change(2, 500, 5)];
    expect(priceVerdict(changes, 20, opts, false).message).toBe(
      'price guard: 3 of 20 priced offers would change price by a factor of 3 or more, more than the limit of 2 ' +
        '(guard.maxPriceChangePercent: 10%, at least guard.maxPriceChangeMin: 2). Nothing was sent. Check the ' +
        "catalogue's prices (an integer is cents: 20 is 0.20); if the new prices are right, run again with " +
        '--allow-price-change.',
    );
  });

  it('let through, it still reports the suspect changes, sorted by kind then external_id', () => {
    const changes: PriceChange[] = [
      { kind: 'topup', externalId: 'a', from: 100, to: 1 },
      change(2, 2000, 2100),
      change(1, 2000, 20),
      { kind: 'account', externalId: 'z', from: 100, to: 1 },
    ];
    expect(priceVerdict(changes, 4, opts, true)).toStrictEqual({
      tripped: false,
      priced: 4,
      suspect: [{ kind: 'account', externalId: 'z', from: 100, to: 1 }, change(1, 2000, 20), changes[0]],
      limit: 2,
    });
  });

  it('shows cents in major units, negative ones too', () => {
    expect([formatCents(123456), formatCents(100), formatCents(-5), formatCents(-1234)]).toEqual([
      '1234.56',
      '1.00',
      '-0.05',
      '-12.34',
    ]);
  });
});
