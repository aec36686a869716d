// What the lists said of items' counts of units sold, into the state db: the count remembered (so a sale is told
// once), the stock's baseline moved when the catalogue caught up with a sale, and the sold.jsonl line of each sale.
// An offer the state db does not map yet is left alone: it is recorded once adopted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { recordSoldCounts } from '../../src/sales/record-sold-counts.ts';
import type { SoldCountNote, UnitSale } from '../../src/sales/unit-sale.ts';
import { unitSale } from '../support/offers.ts';

let store: KyselyStateStore;
beforeEach(async () => {
  store = await openStateStore(':memory:');
});
afterEach(() => store.close());

const SEEN = new Date('2026-11-25T05:30:00.000Z');
const SENT = { title: 'Gold 1000', price: 2499, stock: 5, status: 'listed' };
const mapGold = async () =>
  await store.upsertOffer('item', 'gold-1', {
    remoteId: 7,
    managed: true,
    lastApplied: SENT,
    soldCount: 0,
    soldCountAtSend: 0,
  });
const goldSale = (quantity: number, soldCount: number): UnitSale => unitSale({ quantity, soldCount });

describe('recording counts of units sold', () => {
  it('remembers the count and returns the sale as its sold.jsonl line', async () => {
    await mapGold();
    const note: SoldCountNote = { kind: 'item', externalId: 'gold-1', soldCount: 2, sale: goldSale(2, 2) };
    const lines = await recordSoldCounts(store, [note], SEEN);
    expect(lines).toEqual([
      {
        kind: 'item',
        external_id: 'gold-1',
        id: 7,
        status: 'sold',
        sale_key: 'item:7:count:2',
        title: 'Gold 1000',
        price: 2499,
        currency: null,
        sold_at: SEEN.toISOString(),
        sold_at_source: 'seen',
        seen_at: SEEN.toISOString(),
        quantity: 2,
        sold_count: 2,
      },
    ]);
    const rec = await store.getOffer('item', 'gold-1');
    expect(rec).toMatchObject({ soldCount: 2, soldCountAtSend: 0, lastApplied: SENT });
  });

  it('a count with no sale (a baseline) is remembered and tells no sale', async () => {
    await mapGold();
    expect(
      await recordSoldCounts(store, [{ kind: 'item', externalId: 'gold-1', soldCount: 9, atSend: 9 }], SEEN),
    ).toEqual([]);
    expect(await store.getOffer('item', 'gold-1')).toMatchObject({
      soldCount: 9,
      soldCountAtSend: 9,
      lastApplied: SENT,
    });
  });

  it('the catalogue caught up with a sale: its stock becomes the one last sent, the rest kept', async () => {
    await mapGold();
    await recordSoldCounts(
      store,
      [{ kind: 'item', externalId: 'gold-1', soldCount: 2, atSend: 2, agreedStock: 3 }],
      SEEN,
    );
    expect(await store.getOffer('item', 'gold-1')).toMatchObject({
      soldCount: 2,
      soldCountAtSend: 2,
      lastApplied: { ...SENT, stock: 3 },
    });
  });

  it('an agreed stock of an offer never sent leaves nothing applied', async () => {
    await store.upsertOffer('item', 'gold-1', { remoteId: 7, managed: true, lastApplied: null });
    await recordSoldCounts(store, [{ kind: 'item', externalId: 'gold-1', soldCount: 2, agreedStock: 3 }], SEEN);
    expect(await store.getOffer('item', 'gold-1')).toMatchObject({ soldCount: 2, lastApplied: null });
  });

  it('an offer the state db does not map is left alone, its sale not told yet', async () => {
    await store.upsertOffer('topup', 'rp-1', { remoteId: null, managed: true });
    const notes: SoldCountNote[] = [
      { kind: 'item', externalId: 'unknown', soldCount: 3, atSend: 3 },
      {
        kind: 'topup',
        externalId: 'rp-1',
        soldCount: 4,
        sale: { ...goldSale(1, 4), kind: 'topup', externalId: 'rp-1' },
      },
    ];
    expect(await recordSoldCounts(store, notes, SEEN)).toEqual([]);
    expect(await store.getOffer('item', 'unknown')).toBeUndefined();
    expect((await store.getOffer('topup', 'rp-1'))?.soldCount ?? null).toBeNull();
  });

  it('each mapped offer of many is recorded, in order', async () => {
    await mapGold();
    await store.upsertOffer('topup', 'rp-1', { remoteId: 8, managed: true });
    const rp = { ...goldSale(1, 4), kind: 'topup' as const, externalId: 'rp-1', remoteId: 8, currency: 'EUR' };
    const lines = await recordSoldCounts(
      store,
      [
        { kind: 'topup', externalId: 'rp-1', soldCount: 4, sale: rp },
        { kind: 'item', externalId: 'unknown', soldCount: 1 },
        { kind: 'item', externalId: 'gold-1', soldCount: 1, sale: goldSale(1, 1) },
      ],
      SEEN,
    );
    expect(lines.map((l) => [l.external_id, l.sale_key, l.currency])).toEqual([
      ['rp-1', 'topup:8:count:4', 'EUR'],
      ['gold-1', 'item:7:count:1', null],
    ]);
    expect((await store.getOffer('topup', 'rp-1'))?.soldCount).toBe(4);
    expect((await store.getOffer('item', 'gold-1'))?.soldCount).toBe(1);
  });
});
