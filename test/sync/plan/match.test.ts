// Planning stage 1: the catalogue, the state db and the remote snapshot merged into one record per offer,
// each with its side and what the remote picture says of it (listed, remembered, gone, unconfirmed, absent).
import { describe, expect, it } from 'vitest';
import type { DesiredItem } from '../../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import type { OfferRecord } from '../../../src/state/records.ts';
import { type OfferView, offerViewOf } from '../../../src/state/offer-view.ts';
import { MATCH_PAGE, type MatchedOffer, type MatchInput, match as matchView } from '../../../src/sync/plan/match.ts';
import { emptyKindSnapshot, type RemoteSnapshot } from '../../../src/sync/plan/remote-snapshot.ts';
import { gather } from '../../support/gather.ts';
import { desiredItem, offerRecord, remoteOffer } from '../../support/offers.ts';

/** A state row of an item, mapped to remote offer 40 unless told. */
const state = (externalId: string, over: Partial<OfferRecord> = {}): OfferRecord =>
  offerRecord('item', externalId, { remoteId: 40, ...over });
function snapshot(
  listed: RemoteOffer[],
  full: boolean,
  sets: { gone?: string[]; unconfirmed?: string[] } = {},
): RemoteSnapshot {
  return {
    kinds: {
      account: emptyKindSnapshot(),
      item: { ...emptyKindSnapshot(full), offers: new Map(listed.map((r) => [r.externalId, r])) },
      topup: emptyKindSnapshot(),
    },
    gone: new Set(sets.gone ?? []),
    unconfirmed: new Set(sets.unconfirmed ?? []),
  };
}
/** match over a state table, its records gathered. */
const match = async (input: {
  offers: DesiredItem[];
  state: OfferRecord[];
  remote: RemoteSnapshot;
}): Promise<MatchedOffer[]> => await gather(matchView({ ...input, state: offerViewOf(input.state) }));
const brief = (m: MatchedOffer) => `${m.externalId}:${m.side}:${m.presence}`;

describe('match', () => {
  it('full sweep: catalogue offers first in their order, then remote-only as listed, then state-only', async () => {
    const out = await match({
      offers: [desiredItem('c2'), desiredItem('c1'), desiredItem('both')],
      state: [state('kept-gone'), state('state-unconfirmed'), state('state-quiet')],
      remote: snapshot([remoteOffer('both', 3), remoteOffer('remote-only', 4)], true, {
        gone: ['item:kept-gone'],
        unconfirmed: ['item:state-unconfirmed'],
      }),
    });
    expect(out.map(brief)).toEqual([
      'c2:catalogue:absent',
      'c1:catalogue:absent',
      'both:both:listed',
      'remote-only:remote:listed',
      'kept-gone:remote:gone',
      'state-unconfirmed:remote:unconfirmed',
    ]);
    expect(out[2]).toMatchObject({ key: 'item:both', kind: 'item', live: { id: 3 }, desired: { externalId: 'both' } });
    expect(out[3]).toMatchObject({ desired: undefined, live: { id: 4 } });
  });

  it('a catalogue offer the list missed: gone or unconfirmed as the check by id said, with its state row', async () => {
    const out = await match({
      offers: [desiredItem('g'), desiredItem('u')],
      state: [state('g'), state('u', { remoteId: 41 })],
      remote: snapshot([], true, { gone: ['item:g'], unconfirmed: ['item:u'] }),
    });
    expect(out.map(brief)).toEqual(['g:catalogue:gone', 'u:catalogue:unconfirmed']);
    expect(out[1]).toMatchObject({ live: undefined, state: { remoteId: 41 } });
  });

  it('unconfirmed wins over a listing (a crash left a write on it unsettled)', async () => {
    const out = await match({
      offers: [desiredItem('x')],
      state: [],
      remote: snapshot([remoteOffer('x', 9)], true, { unconfirmed: ['item:x'] }),
    });
    expect(out.map(brief)).toEqual(['x:catalogue:unconfirmed']);
  });

  it('incremental read: an offer not returned is remembered from the state, with its id and status', async () => {
    const out = await match({
      offers: [desiredItem('quiet'), desiredItem('never-sent'), desiredItem('sold-before')],
      state: [
        state('quiet', { remoteId: 50, remoteStatus: null }),
        state('never-sent', { remoteId: null }),
        state('sold-before', { remoteId: 51, remoteStatus: 'sold' }),
        state('state-only', { remoteId: 52 }),
      ],
      remote: snapshot([], false),
    });
    expect(out.map(brief)).toEqual([
      'quiet:both:remembered',
      'never-sent:catalogue:absent',
      'sold-before:both:remembered',
      'state-only:remote:remembered',
    ]);
    expect(out[0]?.live).toEqual({ id: 50, externalId: 'quiet', fields: {} });
    expect(out[2]?.live).toEqual({ id: 51, externalId: 'sold-before', status: 'sold', fields: {} });
    expect(out[3]?.live).toMatchObject({ id: 52, status: 'listed' });
  });

  it('full sweep: a state row the list missed and nobody checked is not an offer any more', async () => {
    const out = await match({ offers: [], state: [state('quiet')], remote: snapshot([], true) });
    expect(out).toEqual([]);
  });

  it('each offer once, even when state and remote both know it', async () => {
    const out = await match({ offers: [], state: [state('r')], remote: snapshot([remoteOffer('r', 40)], false) });
    expect(out.map(brief)).toEqual(['r:remote:listed']);
    expect(out[0]?.state).toMatchObject({ remoteId: 40 });
  });

  it('reads the state of the catalogue offers in pages: an offer past the first page still gets its row', async () => {
    const offers = Array.from({ length: 2 * MATCH_PAGE + 3 }, (_, i) => desiredItem(`o-${i}`));
    const rows = offers.map((d, i) => state(d.externalId, { remoteId: 1000 + i }));
    const out = await match({ offers, state: rows, remote: snapshot([], false) });
    expect(out).toHaveLength(2 * MATCH_PAGE + 3);
    for (const i of [0, MATCH_PAGE - 1, MATCH_PAGE, MATCH_PAGE + 1, 2 * MATCH_PAGE, 2 * MATCH_PAGE + 2])
      expect(out[i]).toMatchObject({ externalId: `o-${i}`, live: { id: 1000 + i } });
  });
});

describe('match: what it asks of the state', () => {
  /** A view over these records that notes the size of each lookup and each read of every key. */
  function counting(records: OfferRecord[], forgotten: string[] = []) {
    const inner = offerViewOf(records);
    const asked = { lookups: [] as number[], keyReads: 0 };
    const view: OfferView = {
      ...inner,
      getMany: async (keys) => {
        asked.lookups.push(keys.length);
        // A row a reconcile beside this plan forgot between the key page and its lookup.
        return (await inner.getMany(keys)).map((r) => (r && forgotten.includes(r.externalId) ? undefined : r));
      },
      keyPages: () => {
        asked.keyReads++;
        return inner.keyPages();
      },
    };
    return { asked, view };
  }
  const pagesOf = async (input: MatchInput) => {
    const sizes: number[] = [];
    for await (const page of matchView(input)) sizes.push(page.length);
    return sizes;
  };

  it('a lookup per page of at most MATCH_PAGE offers, none for nothing, no key read in a routine sweep', async () => {
    const offers = Array.from({ length: MATCH_PAGE }, (_, i) => desiredItem(`c-${i}`));
    const listed = Array.from({ length: MATCH_PAGE + 1 }, (_, i) => remoteOffer(`r-${i}`, i + 1));
    const { asked, view } = counting([state('c-0')]);
    const sizes = await pagesOf({ offers, state: view, remote: snapshot(listed, true) });
    expect(sizes).toEqual([MATCH_PAGE, MATCH_PAGE, 1]);
    expect(asked).toEqual({ lookups: [MATCH_PAGE, MATCH_PAGE, 1], keyReads: 0 });
  });

  it('with an offer gone, reads the keys but looks up only the rows it wants', async () => {
    const { asked, view } = counting([state('c'), state('g')]);
    const out = await gather(
      matchView({ offers: [desiredItem('c')], state: view, remote: snapshot([], true, { gone: ['item:g'] }) }),
    );
    expect(out.map(brief)).toEqual(['c:catalogue:absent', 'g:remote:gone']);
    expect(asked).toEqual({ lookups: [1, 1], keyReads: 1 });
    const seen = counting([state('c')]);
    await gather(
      matchView({ offers: [desiredItem('c')], state: seen.view, remote: snapshot([], true, { gone: ['item:x'] }) }),
    );
    expect(seen.asked).toEqual({ lookups: [1], keyReads: 1 });
  });

  it('a state row forgotten between its key and its lookup is no offer', async () => {
    const { view } = counting([state('kept'), state('forgotten')], ['forgotten']);
    const out = await gather(matchView({ offers: [], state: view, remote: snapshot([], false) }));
    expect(out.map(brief)).toEqual(['kept:remote:remembered']);
  });
});

describe('match: a listing the caller lets it spend', () => {
  it('the same matches, and each listed offer leaves the listing once matched, page by page', async () => {
    const offers = Array.from({ length: MATCH_PAGE + 5 }, (_, i) => desiredItem(`c-${i}`));
    const listed = [...offers.map((d, i) => remoteOffer(d.externalId, i + 1)), remoteOffer('only-remote', 9999)];
    const input = (remote: RemoteSnapshot) => ({ offers, state: offerViewOf([state('c-0')]), remote });
    const kept = snapshot(listed, true);
    const expected = await gather(matchView(input(kept)));
    expect(kept.kinds.item.offers.size).toBe(listed.length);

    const spent = snapshot(listed, true);
    const sizes: number[] = [];
    const got: MatchedOffer[] = [];
    for await (const page of matchView({ ...input(spent), spendListing: true })) {
      got.push(...page);
      sizes.push(spent.kinds.item.offers.size);
    }
    expect(got).toEqual(expected);
    // Let go as matched: after the first page only the rest are left, after the last none.
    expect(sizes).toEqual([listed.length - MATCH_PAGE, 1, 0]);
  });
});
