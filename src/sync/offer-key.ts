// The one key of an offer across catalogue, state and marketplace: its kind and external_id (see
// docs/architecture.md, Identity). Maps and sets of the sync layer are keyed by it.
import type { OfferKind } from '../catalogue/desired-offer.ts';

export type OfferKey = `${OfferKind}:${string}`;

export function offerKey(kind: OfferKind, externalId: string): OfferKey {
  return `${kind}:${externalId}`;
}
