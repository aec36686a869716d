// Reading back offers a bulk answer did not itemise (it gave counts that do not add up, or none at all), through
// the list endpoint, never one GET per offer. Archives run last, so what a bulk call just changed is at
// the front of the list sorted by -updated_at: pages are read until every offer asked for was seen, the list
// ends, or the offers read pass a bound. An offer not seen there was not changed by the call.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { ExecutionContext } from './execution-context.ts';
import { resourceOf } from '../fields/resource-of.ts';

/** Offers read beyond the ones asked for before giving up on the rest: two default pages. */
const SLACK = 200;

/** The live offers among `remoteIds` that the front of the list holds, by id. Throws when a page fails. */
export async function confirmThroughList(
  ctx: ExecutionContext,
  kind: OfferKind,
  remoteIds: readonly number[],
): Promise<Map<number, RemoteOffer>> {
  const wanted = new Set(remoteIds);
  const found = new Map<number, RemoteOffer>();
  const bound = 4 * wanted.size + SLACK;
  let read = 0;
  for await (const page of resourceOf(ctx.client, kind).list({ sort: '-updated_at' })) {
    for (const o of page.items) if (wanted.has(o.id)) found.set(o.id, o);
    read += page.items.length;
    if (found.size === wanted.size || read >= bound) break;
  }
  return found;
}
