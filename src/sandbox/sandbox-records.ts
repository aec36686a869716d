// What the store holds. Offer fields beyond the common core live in `fields`, validated on the way in
// by each kind's rules; timestamps are microseconds from the store's clock.
import type { OfferKind } from './sandbox-options.ts';

export interface OfferRecord {
  readonly id: number;
  external_id: string;
  status: string;
  readonly created_us: number;
  /** null: an account never updated since its create (representation.accountsNullUpdatedAt). */
  updated_us: number | null;
  sold_us: number | null;
  fields: Record<string, unknown>;
}

export interface ImageRecord {
  readonly id: number;
  readonly filename: string;
  readonly original_name: string;
  readonly mime_type: string;
  readonly size_bytes: number;
  readonly sha256: string;
  readonly created_us: number;
}

export const OFFER_KINDS: readonly OfferKind[] = ['accounts', 'items', 'top-ups'];

/** Statuses the marketplace sets itself; an offer in one of them is no longer the seller's to change. */
export const LOCKED_STATUSES: readonly string[] = ['sold', 'refunded', 'processing'];

/** Every status an offer can be given through the control route. */
export const ALL_STATUSES: readonly string[] = [
  'draft',
  'pending',
  'listed',
  'processing',
  'sold',
  'refunded',
  'archived',
];
