// Item offers: create, list, get, update (PATCH carries only title, price, stock, status, description; the
// planner keeps it so). No archive route is documented: archiving is PATCH status=archived.
import type { OfferResource } from './marketplace-client.ts';
import { HttpOfferResource } from './offer-resource.ts';
import type { ResourceContext } from './resource-context.ts';

export function createItemResource(ctx: ResourceContext): OfferResource {
  return new HttpOfferResource(ctx, 'items');
}
