// The view over records a test or a caller already holds (offerViewOf): the planner and the list reader take it
// where a state db's view would serve, so it must page, look up and count as a store's view does.
import { describe, expect, it } from 'vitest';
import { asOfferView, isManagedListed, offerViewOf, VIEW_PAGE } from '../../src/state/offer-view.ts';
import { offerRecord } from '../support/offers.ts';

/** The pages as yielded, not flattened: where a page ends is what these tests check. */
async function pagesOf<T>(pages: AsyncIterable<readonly T[]>): Promise<(readonly T[])[]> {
  const out: (readonly T[])[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

const many = (n: number) => Array.from({ length: n }, (_, i) => offerRecord('item', `sku-${i}`, { remoteId: i + 1 }));

describe('offerViewOf', () => {
  it('pages the keys and the records by VIEW_PAGE, in the order given, the last page short', async () => {
    const records = many(VIEW_PAGE + 3);
    const view = offerViewOf(records);
    const keyPages = await pagesOf(view.keyPages());
    expect(keyPages.map((p) => p.length)).toEqual([VIEW_PAGE, 3]);
    expect(keyPages[0]?.[0]).toEqual(['item', 'sku-0']);
    expect(keyPages[1]).toEqual([
      ['item', `sku-${VIEW_PAGE}`],
      ['item', `sku-${VIEW_PAGE + 1}`],
      ['item', `sku-${VIEW_PAGE + 2}`],
    ]);
    const pages = await pagesOf(view.pages());
    expect(pages.map((p) => p.length)).toEqual([VIEW_PAGE, 3]);
    expect(pages.flat()).toEqual(records);
  });

  it('yields no page at all for no records, and one for exactly a page', async () => {
    expect(await pagesOf(offerViewOf([]).keyPages())).toEqual([]);
    expect(await pagesOf(offerViewOf([]).pages())).toEqual([]);
    expect((await pagesOf(offerViewOf(many(VIEW_PAGE)).pages())).map((p) => p.length)).toEqual([VIEW_PAGE]);
  });

  it('looks an offer up by kind and external_id, many at once in the order asked', async () => {
    const item = offerRecord('item', 'a', { remoteId: 1 });
    const account = offerRecord('account', 'a', { remoteId: 2 });
    const view = offerViewOf([item, account]);
    expect(await view.get('item', 'a')).toBe(item);
    expect(await view.get('account', 'a')).toBe(account);
    expect(await view.get('topup', 'a')).toBeUndefined();
    expect(
      await view.getMany([
        ['account', 'a'],
        ['item', 'missing'],
        ['item', 'a'],
      ]),
    ).toEqual([account, undefined, item]);
  });

  it('counts the managed offers not archived: the base of the mass-archive guard', async () => {
    const records = [
      offerRecord('item', 'listed', { managed: true, remoteStatus: 'listed' }),
      offerRecord('item', 'unknown-status', { managed: true, remoteStatus: null }),
      offerRecord('item', 'archived', { managed: true, remoteStatus: 'archived' }),
      offerRecord('item', 'not-ours', { managed: false, remoteStatus: 'listed' }),
    ];
    expect(records.map(isManagedListed)).toEqual([true, true, false, false]);
    expect(await offerViewOf(records).countManaged()).toBe(2);
  });
});

describe('asOfferView', () => {
  it('wraps records in a view and passes a view through as it is', async () => {
    const records = many(2);
    const wrapped = asOfferView(records);
    expect(await wrapped.get('item', 'sku-1')).toBe(records[1]);
    const view = offerViewOf(records);
    expect(asOfferView(view)).toBe(view);
  });
});
