// The sold.jsonl line of a sale, from what the marketplace answered and, where it said nothing, what offersync
// last sent: an offer whose status turned sold (or refunded, processing), or units of an item or top-up.
import type { OfferKind } from '../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import { saleKey, type SoldEntry } from './sold-log.ts';
import type { UnitSale } from './unit-sale.ts';

/** Fields under their API names: a remote offer's, the catalogue's, or those last sent. */
type Fields = object;

const field = (f: Fields | null | undefined, name: string): unknown =>
  f ? (f as Readonly<Record<string, unknown>>)[name] : undefined;

/** The title (top-ups: offer_title) of the first of `sources` that has one. */
export function titleIn(...sources: readonly (Fields | null | undefined)[]): string | null {
  for (const f of sources) {
    const t = field(f, 'title') ?? field(f, 'offer_title');
    if (typeof t === 'string' && t !== '') return t;
  }
  return null;
}

/** The price in cents of the first of `sources` that has an integer one. */
export function priceIn(...sources: readonly (Fields | null | undefined)[]): number | null {
  for (const f of sources) {
    const p = field(f, 'price');
    if (typeof p === 'number' && Number.isSafeInteger(p)) return p;
  }
  return null;
}

export function currencyIn(...sources: readonly (Fields | null | undefined)[]): string | null {
  for (const f of sources) {
    const c = field(f, 'currency');
    if (typeof c === 'string' && c !== '') return c;
  }
  return null;
}

/**
 * An offer the marketplace now owns (`remote.status` sold, refunded, processing). `lastApplied`: the fields
 * offersync last sent it, for a title and price the answer did not carry.
 */
export function statusSaleEntry(
  kind: OfferKind,
  externalId: string,
  remote: RemoteOffer & { readonly status: string },
  lastApplied: Fields | null,
  seenAt: Date,
): SoldEntry {
  const marketplaceSoldAt = typeof remote.soldAt === 'number' ? new Date(remote.soldAt).toISOString() : null;
  return {
    kind,
    external_id: externalId,
    id: remote.id,
    status: remote.status,
    sale_key: saleKey({ kind, id: remote.id, status: remote.status, marketplaceSoldAt }),
    title: titleIn(remote.fields, lastApplied),
    price: priceIn(remote.fields, lastApplied),
    currency: currencyIn(remote.fields, lastApplied),
    sold_at: marketplaceSoldAt ?? seenAt.toISOString(),
    sold_at_source: marketplaceSoldAt ? 'marketplace' : 'seen',
    seen_at: seenAt.toISOString(),
  };
}

/** Units of an item or top-up: the API gives no time of a unit sale, so sold_at is when offersync saw it. */
export function unitSaleEntry(sale: UnitSale, seenAt: Date): SoldEntry {
  return {
    kind: sale.kind,
    external_id: sale.externalId,
    id: sale.remoteId,
    status: 'sold',
    sale_key: saleKey({ kind: sale.kind, id: sale.remoteId, soldCount: sale.soldCount }),
    title: sale.title,
    price: sale.price,
    currency: sale.currency,
    sold_at: seenAt.toISOString(),
    sold_at_source: 'seen',
    seen_at: seenAt.toISOString(),
    quantity: sale.quantity,
    sold_count: sale.soldCount,
  };
}
