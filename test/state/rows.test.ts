// applyOfferPatch writes a patch into an offer row and answers the fields it set: the same set is the same array
// each time, which the stores use to find their prepared upsert without building a key a write.
import { describe, expect, it } from 'vitest';
import { applyOfferPatch, offerDefaults } from '../../src/state/rows.ts';

describe('applyOfferPatch', () => {
  it('sets the patched columns and answers one frozen array for each set of fields', () => {
    const a = offerDefaults('item', 'it-1', 1);
    const setA = applyOfferPatch(a, { remoteId: 7, lastApplied: { price: 100 }, managed: true });
    expect(a).toMatchObject({ remote_id: 7, last_applied: '{"price":100}', managed: 1 });
    expect(setA).toEqual(['remoteId', 'lastApplied', 'managed']);
    expect(Object.isFrozen(setA)).toBe(true);

    const b = offerDefaults('item', 'it-2', 1);
    // The same fields in another order, other values: the same array.
    expect(applyOfferPatch(b, { managed: false, lastApplied: null, remoteId: 8 })).toBe(setA);
    expect(b).toMatchObject({ remote_id: 8, last_applied: null, managed: 0 });

    const other = applyOfferPatch(offerDefaults('item', 'it-3', 1), { remoteId: 9 });
    expect(other).toEqual(['remoteId']);
    expect(other).not.toBe(setA);
  });
});
