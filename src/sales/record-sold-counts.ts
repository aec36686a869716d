// What the lists said of items' and top-ups' counts of units sold, into the state db and sold.jsonl: a sale is
// told once (the count is remembered), and the stock's baseline moves when the catalogue caught up with a sale.
import type { StateStore } from '../state/state-store.ts';
import { unitSaleEntry } from './sale-entry.ts';
import type { SoldEntry } from './sold-log.ts';
import type { SoldCountNote } from './unit-sale.ts';

/**
 * Records the notes of offers the state db maps (an offer being adopted is recorded once adopted) and returns the
 * sold.jsonl lines of their sales.
 */
export async function recordSoldCounts(
  store: StateStore,
  notes: readonly SoldCountNote[],
  seenAt: Date,
): Promise<SoldEntry[]> {
  const sold: SoldEntry[] = [];
  for (const n of notes) {
    const rec = await store.getOffer(n.kind, n.externalId);
    if (rec?.remoteId == null) continue;
    const lastApplied =
      n.agreedStock !== undefined && rec.lastApplied ? { ...rec.lastApplied, stock: n.agreedStock } : undefined;
    await store.upsertOffer(n.kind, n.externalId, {
      soldCount: n.soldCount,
      ...(n.atSend !== undefined ? { soldCountAtSend: n.atSend } : {}),
      ...(lastApplied ? { lastApplied } : {}),
    });
    if (n.sale) sold.push(unitSaleEntry(n.sale, seenAt));
  }
  return sold;
}
