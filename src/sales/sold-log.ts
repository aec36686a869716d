// sold.jsonl beside the state db: one line per offer the marketplace sold or refunded, and one per sale of units of
// an item or top-up (with its quantity), so the seller's inventory scripts can learn about the sale
// (docs/architecture.md, Ownership and Sales). Rotated so that months of sales stay bounded: past SOLD_LOG_MAX_BYTES
// the file becomes sold.jsonl.1 (replacing the one before) and a new one starts.
import { appendFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OfferKind } from '../catalogue/desired-offer.ts';

/**
 * Where a sale's `sold_at` came from: the marketplace's own `sold_at` (accounts' answers carry it), or the time
 * offersync saw the sale (items and top-ups, whose answers carry none; an account whose answer lacked it).
 */
export const SOLD_AT_SOURCES = ['marketplace', 'seen'] as const;
export type SoldAtSource = (typeof SOLD_AT_SOURCES)[number];

/** One line of sold.jsonl: API-style names, as the seller's scripts read them. */
export interface SoldEntry {
  readonly kind: OfferKind;
  readonly external_id: string;
  /** The marketplace's id of the offer. */
  readonly id: number;
  /** Accounts: sold, refunded or processing; items and top-ups: sold. */
  readonly status: string;
  /** The same for every line that tells of one sale, whichever run wrote it (saleKey). */
  readonly sale_key: string;
  /** The offer's title (top-ups: offer_title) as the marketplace or, failing it, the catalogue had it. */
  readonly title: string | null;
  /** Its price in cents (items and top-ups: of one unit); null when neither side gave one. */
  readonly price: number | null;
  /** Top-ups carry one; accounts and items have no currency field in the API: null. */
  readonly currency: string | null;
  /** ISO 8601: when it sold, as `sold_at_source` says. */
  readonly sold_at: string;
  readonly sold_at_source: SoldAtSource;
  /** ISO 8601: when offersync saw the sale. */
  readonly seen_at: string;
  /** Items and top-ups: the units sold since the last run. */
  readonly quantity?: number;
  /** Items and top-ups: the marketplace's count of units sold, after this sale. */
  readonly sold_count?: number;
}

/**
 * Names one sale whichever run tells of it: an offer's status turning sold, refunded or processing (with the
 * marketplace's sold_at when it gave one), or a rise of an item's or top-up's count of units sold to `soldCount` (the
 * count only rises, so each value is one sale).
 */
export function saleKey(
  s:
    | {
        readonly kind: OfferKind;
        readonly id: number;
        readonly status: string;
        readonly marketplaceSoldAt: string | null;
      }
    | { readonly kind: OfferKind; readonly id: number; readonly soldCount: number },
): string {
  return 'soldCount' in s
    ? `${s.kind}:${s.id}:count:${s.soldCount}`
    : `${s.kind}:${s.id}:${s.status}${s.marketplaceSoldAt ? `:${s.marketplaceSoldAt}` : ''}`;
}

export const SOLD_LOG_MAX_BYTES = 8 * 1024 * 1024;

export function soldLogPath(statePath: string): string | null {
  return statePath === ':memory:' ? null : join(dirname(statePath), 'sold.jsonl');
}

export function appendSold(statePath: string, entries: readonly SoldEntry[], maxBytes = SOLD_LOG_MAX_BYTES): void {
  const path = soldLogPath(statePath);
  if (!path || entries.length === 0) return;
  const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  if (size >= maxBytes) renameSync(path, `${path}.1`);
  appendFileSync(path, `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`, { mode: 0o600 });
}
