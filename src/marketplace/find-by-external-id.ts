// DESIGN.md decision 1: find an offer by the seller's external_id without ever taking a wrong answer for
// the right one, and without ever taking an unknown for "not there".
import { DecodeError, decodeOffer, unwrapSingle } from './decode.ts';
import { AbortedError, MarketplaceError, UnauthenticatedError, ForbiddenError } from './errors.ts';
import { collectionPath, isPathSafeExternalId, offerPathByExternalId } from './identifiers.ts';
import type { CallOptions, RemoteOffer, ResourceKind } from './marketplace-client.ts';
import { walkPages } from './pagination.ts';
import { callOf, type ResourceContext } from './resource-context.ts';

/**
 * After GET /{kind}/{external_id} failed: may the list still answer? Yes for answers about this path (404,
 * 405, another 4xx, an unreadable page); no for what the list would hit too (key, rate, server, network).
 */
function listMayAnswer(err: unknown): boolean {
  if (!(err instanceof MarketplaceError)) return false;
  if (err instanceof UnauthenticatedError || err instanceof ForbiddenError || err instanceof AbortedError) return false;
  return !err.retryable;
}

async function byPath(
  ctx: ResourceContext,
  kind: ResourceKind,
  externalId: string,
  opts?: CallOptions,
): Promise<RemoteOffer | undefined> {
  try {
    const res = await ctx.transport.send({
      method: 'GET',
      path: offerPathByExternalId(kind, externalId),
      idempotent: true,
      ...callOf(opts),
    });
    const offer = decodeOffer(kind, unwrapSingle(res.body));
    if (offer.externalId === externalId) return offer;
    // A server that read the path as something else (an id, a trimmed or case-folded key): not a match.
    ctx.logger.debug(
      { kind, externalId, answered: offer.externalId },
      'GET by external_id answered another offer; asking the list',
    );
  } catch (err) {
    if (!(err instanceof DecodeError) && !listMayAnswer(err)) throw err;
    ctx.logger.debug(
      { kind, externalId, err: (err as Error).message },
      'GET by external_id did not answer; asking the list',
    );
  }
  return undefined;
}

type Scan = { readonly found: RemoteOffer } | { readonly found: null; readonly trusted: boolean };

/** Pages in id order until the offer is found; with a filter, stops at the first sign it is not honoured. */
async function scan(
  ctx: ResourceContext,
  kind: ResourceKind,
  externalId: string,
  filter: boolean,
  opts?: CallOptions,
): Promise<Scan> {
  const params = new URLSearchParams();
  if (filter) params.set(ctx.list.filterParam, externalId);
  params.set(ctx.list.sortParam, 'id');
  params.set(ctx.list.perPageParam, String(ctx.list.perPage));
  const pages = walkPages<RemoteOffer>({
    transport: ctx.transport,
    path: collectionPath(kind),
    params,
    pageParam: ctx.list.pageParam,
    numberFirstPage: true,
    perPage: ctx.list.perPage,
    maxPages: ctx.list.maxPages,
    decode: (raw) => decodeOffer(kind, unwrapSingle(raw), true),
    idOf: (o) => o.id,
    ...callOf(opts),
  });
  for await (const page of pages) {
    const match = page.items.find((o) => o.externalId === externalId);
    if (match) return { found: match };
    if (filter && page.items.length > 0) return { found: null, trusted: false };
  }
  return { found: null, trusted: true };
}

export async function findByExternalId(
  ctx: ResourceContext,
  kind: ResourceKind,
  externalId: string,
  opts?: CallOptions,
): Promise<RemoteOffer | null> {
  if (isPathSafeExternalId(externalId)) {
    const offer = await byPath(ctx, kind, externalId, opts);
    if (offer) return offer;
  }
  if (ctx.list.filterParam !== '') {
    const filtered = await scan(ctx, kind, externalId, true, opts);
    if (filtered.found || filtered.trusted) return filtered.found;
    ctx.logger.debug({ kind, externalId }, 'the list filter is not honoured; scanning the list');
  }
  return (await scan(ctx, kind, externalId, false, opts)).found;
}
