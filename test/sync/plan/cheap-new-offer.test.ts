// The price guard's look at new offers: 89 typed for 89.00 beside offers of 24.99 to 35.00 is held, with why.
import { describe, expect, it } from 'vitest';
import type { DesiredOffer } from '../../../src/catalogue/desired-offer.ts';
import { holdCheapNewOffers, medianOfOthers } from '../../../src/sync/plan/cheap-new-offer.ts';
import type { CreateAction, PlanAction } from '../../../src/sync/plan/plan-actions.ts';

const offer = (externalId: string, price: number, game = 'lol'): DesiredOffer => ({
  kind: 'account',
  externalId,
  hash: externalId,
  source: { file: 'accounts/lol.xlsx' },
  fields: { title: externalId, price, game },
  images: [],
});

const create = (d: DesiredOffer): CreateAction => ({
  type: 'create',
  kind: d.kind,
  externalId: d.externalId,
  desired: d,
  fields: d.fields,
  imagesPending: false,
  verifyFirst: false,
  alignRoute: { via: 'patch', ifRefused: 'report' },
  reason: 'new in the catalogue',
});

const summary = (actions: readonly PlanAction[]) =>
  actions.map((a) => [a.type === 'upload' ? '' : a.externalId, a.type, a.type === 'noop' ? a.reason : '']);

describe('new offers priced under a tenth of the median of their kind and game', () => {
  it('the median is of the other offers: the cheap one does not pull it down', () => {
    expect(medianOfOthers([89, 2499, 3000, 3500], 89)).toBe(3000);
    expect(medianOfOthers([89, 2499, 3000, 3500], 3500)).toBe(2499);
    expect(medianOfOthers([100, 200, 300, 400, 500], 300)).toBe(300);
    expect(medianOfOthers([89, 2499, 3000], 89)).toBeUndefined(); // two others are too few to judge by
  });

  it('a cheap create is held as blocked with why; its peers, another game and an existing offer are not', () => {
    const offers = [
      offer('LOL-001', 2499),
      offer('LOL-002', 3000),
      offer('LOL-003', 3500),
      offer('LOL-004', 89),
      offer('VAL-001', 89, 'valorant'),
    ];
    const held = holdCheapNewOffers(offers.map(create), offers);
    expect(summary(held)).toEqual([
      ['LOL-001', 'create', ''],
      ['LOL-002', 'create', ''],
      ['LOL-003', 'create', ''],
      ['LOL-004', 'noop', 'blocked'],
      ['VAL-001', 'create', ''],
    ]);
    const blocked = held[3]!;
    expect(blocked.type === 'noop' && blocked.detail).toBe(
      "price guard: not listed: this new offer's price 0.89 (accounts/lol.xlsx) is under a tenth of the median " +
        '30.00 of your other account offers of lol. A whole number in a price column is cents unless the header ' +
        "says the unit (e.g. 'Price (EUR)'); correct the price, or if it is right, run reconcile with " +
        '--allow-price-change',
    );
    // At a tenth of the median or more, it is listed.
    const fine = [...offers.slice(0, 3), offer('LOL-004', 300)];
    expect(summary(holdCheapNewOffers(fine.map(create), fine))[3]).toEqual(['LOL-004', 'create', '']);
  });
});
