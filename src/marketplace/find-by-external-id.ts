// docs/architecture.md, Identity: find an offer by the seller's external_id without ever taking a wrong answer for
// the right one, and without ever taking an unknown for "not there".
import { DecodeError, decodeOffer, unwrapSingle } from './decode.ts';
import {
  AbortedError,
  BadResponseError,
  ForbiddenError,
  MarketplaceError,
  MethodNotAllowedError,
  UnauthenticatedError,
} from './marketplace-errors.ts';
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

/** Capability names, as `offersync status` shows them. */
export function lookupByPathCapability(kind: ResourceKind): string {
  return `GET /${kind}/{external_id}`;
}
export function listFilterCapability(kind: ResourceKind, filterParam: string): string {
  return `GET /${kind}?${filterParam}=`;
}

type ByPath =
  | { readonly kind: 'found'; readonly offer: RemoteOffer }
  /** The answer shows the path is not this API's lookup: an HTML page, a 405, JSON that is no offer, another offer. */
  | { readonly kind: 'not-served'; readonly detail: string }
  /** A JSON 404 or another refusal: not there, or not served; the list tells which. */
  | { readonly kind: 'no-answer' };

async function byPath(
  ctx: ResourceContext,
  kind: ResourceKind,
  externalId: string,
  opts?: CallOptions,
): Promise<ByPath> {
  let offer: RemoteOffer;
  try {
    const res = await ctx.transport.send({
      method: 'GET',
      path: offerPathByExternalId(kind, externalId),
      idempotent: true,
      ...callOf(opts),
    });
    offer = decodeOffer(kind, unwrapSingle(res.body), false, ctx.decode);
  } catch (err) {
    if (!(err instanceof DecodeError) && !listMayAnswer(err)) throw err;
    ctx.logger.debug(
      { kind, externalId, err: (err as Error).message },
      'GET by external_id did not answer; asking the list',
    );
    if (err instanceof DecodeError) return { kind: 'not-served', detail: `answered JSON that is not an offer` };
    if (err instanceof MethodNotAllowedError) return { kind: 'not-served', detail: `405: ${err.message}` };
    if (err instanceof BadResponseError)
      return { kind: 'not-served', detail: `answered a page that is not the API's (${err.status ?? 'no status'})` };
    return { kind: 'no-answer' };
  }
  if (offer.externalId === externalId) return { kind: 'found', offer };
  // A server that read the path as something else (an id, a trimmed or case-folded key): not a match.
  ctx.logger.debug(
    { kind, externalId, answered: offer.externalId },
    'GET by external_id answered another offer; asking the list',
  );
  return { kind: 'not-served', detail: 'answered another offer' };
}

interface Scan {
  readonly found: RemoteOffer | null;
  /** With a filter: the answer held other offers, so the filter is not honoured (and a null proves nothing). */
  readonly filterIgnored: boolean;
}

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
    decode: (raw) => decodeOffer(kind, unwrapSingle(raw), true, ctx.decode),
    idOf: (o) => o.id,
    ...callOf(opts),
  });
  for await (const page of pages) {
    const match = page.items.find((o) => o.externalId === externalId) ?? null;
    const filterIgnored = filter && page.items.some((o) => o.externalId !== externalId);
    if (match || filterIgnored) return { found: match, filterIgnored };
  }
  return { found: null, filterIgnored: false };
}

function remember(ctx: ResourceContext, name: string, usable: boolean, detail: string | null): void {
  if (ctx.capabilities.usable(name) === usable) return;
  ctx.capabilities.remember(name, usable, detail);
  if (!usable) ctx.logger.info({ capability: name, detail }, 'lookups by external_id no longer use this route');
}

export async function findByExternalId(
  ctx: ResourceContext,
  kind: ResourceKind,
  externalId: string,
  opts?: CallOptions,
): Promise<RemoteOffer | null> {
  // Once the path shows it does not serve lookups, they go straight to the list.
  const pathCap = lookupByPathCapability(kind);
  let pathMissedIt = false;
  if (isPathSafeExternalId(externalId) && ctx.capabilities.usable(pathCap) !== false) {
    const answer = await byPath(ctx, kind, externalId, opts);
    if (answer.kind === 'found') {
      remember(ctx, pathCap, true, null);
      return answer.offer;
    }
    if (answer.kind === 'not-served') remember(ctx, pathCap, false, answer.detail);
    else pathMissedIt = true;
  }
  const found = await fromList(ctx, kind, externalId, opts);
  // The path said "no" about an offer the list holds: it does not look offers up by external_id.
  if (found && pathMissedIt) remember(ctx, pathCap, false, 'did not find an offer the list holds');
  return found;
}

async function fromList(
  ctx: ResourceContext,
  kind: ResourceKind,
  externalId: string,
  opts?: CallOptions,
): Promise<RemoteOffer | null> {
  const filterCap = listFilterCapability(kind, ctx.list.filterParam);
  if (ctx.list.filterParam !== '' && ctx.capabilities.usable(filterCap) !== false) {
    const filtered = await scan(ctx, kind, externalId, true, opts);
    if (filtered.filterIgnored) remember(ctx, filterCap, false, 'the filtered list answered other offers');
    else if (filtered.found) remember(ctx, filterCap, true, null);
    if (filtered.found || !filtered.filterIgnored) return filtered.found;
    ctx.logger.debug({ kind, externalId }, 'the list filter is not honoured; scanning the list');
  }
  return (await scan(ctx, kind, externalId, false, opts)).found;
}
