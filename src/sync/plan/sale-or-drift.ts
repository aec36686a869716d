// Whether a lower stock on the marketplace is a sale or an edit (docs/architecture.md, Sales). Patching a sale's
// stock back would put units on sale the seller no longer holds; patching an edit back is what drift is for.
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { FieldChange } from '../fields/field-change.ts';

export interface StockPicture {
  /** The catalogue's stock. */
  readonly desired: number;
  /** The stock offersync last sent; undefined when it never sent one (an offer being adopted). */
  readonly lastSent: number | undefined;
  /** The marketplace's stock. */
  readonly live: number;
  /** The marketplace's count of units sold now; undefined when it does not show one. */
  readonly soldNow: number | undefined;
  /** Its count when the stock was last sent; null when not known (an offer from before counts were kept). */
  readonly soldAtSend: number | null;
}

/**
 * - same: the marketplace holds the catalogue's stock.
 * - changed: the catalogue's stock changed since it was last sent (or was never sent): sent as written.
 * - sale: the catalogue's stock is unchanged and the marketplace's fell by exactly the units sold since: nothing
 *   is sent.
 * - drift: a change with no sale behind it (an edit on the website).
 */
export type StockVerdict = 'same' | 'changed' | 'sale' | 'drift';

export function stockVerdict(p: StockPicture): StockVerdict {
  if (p.desired === p.live) return 'same';
  // Adopted (state lost, or a create whose answer was lost): units sold since the listing explain a lower stock.
  if (p.lastSent === undefined)
    return p.soldNow !== undefined && p.live < p.desired && p.desired - p.live <= p.soldNow ? 'sale' : 'changed';
  if (p.desired !== p.lastSent) return 'changed';
  if (p.soldNow === undefined) return 'drift';
  const fell = p.lastSent - p.live;
  if (fell <= 0) return 'drift';
  // Without the count at the last send (state from an older offersync), every unit ever sold may explain it.
  if (p.soldAtSend === null) return fell <= p.soldNow ? 'sale' : 'drift';
  return fell === p.soldNow - p.soldAtSend ? 'sale' : 'drift';
}

/**
 * The changes less a stock the marketplace lowered by its sales: sending it back would undo them. `lastApplied`
 * null: the offer is being adopted, nothing was sent yet.
 */
export function withoutSales(
  changes: readonly FieldChange[],
  lastApplied: Readonly<Record<string, unknown>> | null,
  live: RemoteOffer,
  soldAtSend: number | null,
): readonly FieldChange[] {
  const stock = changes.find((c) => c.field === 'stock' && (c.why === 'drift' || lastApplied === null));
  const liveStock = live.fields.stock;
  const sent = lastApplied?.stock;
  if (!stock || typeof stock.to !== 'number' || typeof liveStock !== 'number') return changes;
  const verdict = stockVerdict({
    desired: stock.to,
    lastSent: typeof sent === 'number' ? sent : undefined,
    live: liveStock,
    soldNow: live.soldCount,
    soldAtSend,
  });
  return verdict === 'sale' ? changes.filter((c) => c !== stock) : changes;
}
