// The marketplace's side of a run as data: an empty kind's picture, and letting go of the listing once planned.
import { describe, expect, it } from 'vitest';
import { emptyKindSnapshot, forgetListing, type RemoteSnapshot } from '../../../src/sync/plan/remote-snapshot.ts';
import { remoteOffer } from '../../support/offers.ts';

describe('remote snapshot', () => {
  it('an empty kind is complete, full unless told, with nothing listed', () => {
    expect(emptyKindSnapshot()).toEqual({ offers: new Map(), full: true, complete: true, duplicates: [] });
    expect(emptyKindSnapshot(false).full).toBe(false);
  });

  it("forgetListing drops every kind's listed offers and keeps what the run still reads of the picture", () => {
    const listed = (ids: string[]) => new Map(ids.map((id, i) => [id, remoteOffer(id, i + 1)]));
    const snapshot: RemoteSnapshot = {
      kinds: {
        account: { ...emptyKindSnapshot(), offers: listed(['a1', 'a2']) },
        item: { ...emptyKindSnapshot(false), offers: listed(['i1']), duplicates: ['i1'] },
        topup: { ...emptyKindSnapshot(), offers: listed(['t1']), complete: false, error: 'page 2: 503' },
      },
      gone: new Set(['item:g']),
      unconfirmed: new Set(['account:u']),
    };
    forgetListing(snapshot);
    expect([snapshot.kinds.account, snapshot.kinds.item, snapshot.kinds.topup].map((k) => k.offers.size)).toEqual([
      0, 0, 0,
    ]);
    expect(snapshot.kinds.item).toMatchObject({ full: false, duplicates: ['i1'] });
    expect(snapshot.kinds.topup).toMatchObject({ complete: false, error: 'page 2: 503' });
    expect([...snapshot.gone, ...snapshot.unconfirmed]).toEqual(['item:g', 'account:u']);
  });
});
