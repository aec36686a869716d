// The identity of an offer: its kind and external_id (docs/architecture.md, Identity). The catalogue keys its
// offers by it, the state db and the sync layer too.
import type { OfferKind } from './desired-offer.ts';

export type OfferKey = `${OfferKind}:${string}`;

export function offerKey(kind: OfferKind, externalId: string): OfferKey {
  return `${kind}:${externalId}`;
}

/**
 * External_ids in one conflict group are one offer to some servers, which compare them without letter case:
 * two catalogue entries in a group are a conflict. (Surrounding spaces are trimmed when the record is read.)
 */
export function conflictGroup(kind: OfferKind, externalId: string): string {
  return offerKey(kind, externalId.toLowerCase());
}
