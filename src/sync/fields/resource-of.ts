// The client resource that serves one kind of offer.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { MarketplaceClient, OfferResource } from '../../marketplace/marketplace-client.ts';

export function resourceOf(client: MarketplaceClient, kind: OfferKind): OfferResource {
  switch (kind) {
    case 'account':
      return client.accounts;
    case 'item':
      return client.items;
    case 'topup':
      return client.topUps;
    default:
      return kind satisfies never;
  }
}
