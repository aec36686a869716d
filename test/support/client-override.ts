// The real client with one method of one resource replaced: for faults the sandbox cannot aim at a single
// call (a 5xx on the first account PATCH only, an HTML 404 on one GET).
import type { MarketplaceClient, RemoteOffer } from '../../src/marketplace/marketplace-client.ts';

type OfferResourceName = 'accounts' | 'items' | 'topUps';

export function overrideMethod(
  client: MarketplaceClient,
  resource: OfferResourceName,
  method: string,
  // unknown, not Promise<unknown>: list() answers an async iterable of pages.
  impl: (original: (...args: unknown[]) => Promise<unknown>, ...args: unknown[]) => unknown,
): MarketplaceClient {
  const target = client[resource];
  const proxied = new Proxy(target, {
    get(t, prop, receiver) {
      const v = Reflect.get(t, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const bound = (v as (...a: unknown[]) => Promise<unknown>).bind(t);
      return prop === method ? (...args: unknown[]) => impl(bound, ...args) : bound;
    },
  });
  return {
    accounts: client.accounts,
    items: client.items,
    topUps: client.topUps,
    images: client.images,
    [resource]: proxied,
    close: () => client.close(),
  };
}

type ListPage = { readonly items: RemoteOffer[] };

/** The real client whose `list` of one resource shows each page as `map` rewrites it (an offer left out, a field
 * the marketplace does not echo). */
export function mapListPages(
  client: MarketplaceClient,
  resource: OfferResourceName,
  map: (page: ListPage) => ListPage,
): MarketplaceClient {
  return overrideMethod(client, resource, 'list', async function* (original, ...args) {
    // list() answers an async iterable of pages, not the promise overrideMethod's signature names.
    const pages = (original as unknown as (...a: unknown[]) => AsyncIterable<ListPage>)(...args);
    for await (const page of pages) yield map(page);
  });
}
