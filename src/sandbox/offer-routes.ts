// What the three offer kinds share: find by {identifier}, the list endpoint, the single-object answer, the
// create and update routes, and the rule that an offer the marketplace has sold is no longer the seller's to change.
import type { ApiContext, ApiRequest, ApiResult, RouteDef } from './api-route.ts';
import { ok, wrote } from './api-route.ts';
import { databaseRejection } from './database-error.ts';
import { checkFields, requireFields, type Rule } from './field-rules.ts';
import { HttpError, invalid, notFound, Validation } from './http-error.ts';
import { paginate, parseSort, sortBy } from './paging.ts';
import { LOCKED_STATUSES, type OfferRecord } from './sandbox-records.ts';
import { type ImageUrlOf, RESPONSE_FIELDS, fieldValue, presentOffer, single } from './represent.ts';
import type { DisableableRoute, OfferKind } from './sandbox-options.ts';

export function findOffer(ctx: ApiContext, kind: OfferKind, identifier: string | undefined): OfferRecord {
  const rec =
    identifier === undefined
      ? undefined
      : ctx.store.find(kind, identifier, ctx.representation.numericIdPathsOnly === true);
  if (!rec) throw notFound();
  return rec;
}

export function assertChangeable(rec: OfferRecord): void {
  if (LOCKED_STATUSES.includes(rec.status))
    throw new HttpError(409, `The offer is ${rec.status}: the marketplace owns it now (offer is sold).`);
}

/** representation.statusArchivedRefused: an item or top-up update may not set status archived (DELETE archives). */
export function assertStatusAllowed(ctx: ApiContext, change: Record<string, unknown>): void {
  if (ctx.representation.statusArchivedRefused && change.status === 'archived')
    throw invalid('status', 'The selected status is invalid.');
}

/** A gallery image's public url, relative to the sandbox's origin, as storage serves it. */
export const imageUrlOf =
  (ctx: ApiContext): ImageUrlOf =>
  (id) => {
    const img = ctx.store.images.get(id);
    return img ? `/storage/gallery/${img.filename}` : undefined;
  };

export function answerOne(ctx: ApiContext, kind: OfferKind, rec: OfferRecord): Record<string, unknown> {
  return single(presentOffer(kind, rec, ctx.representation, imageUrlOf(ctx)), ctx.representation);
}

/** Sortable: every scalar response field. */
const SORTABLE: Readonly<Record<OfferKind, readonly string[]>> = {
  accounts: RESPONSE_FIELDS.accounts.filter((f) => !['image_ids', 'image_urls', 'game_data'].includes(f)),
  items: RESPONSE_FIELDS.items,
  'top-ups': RESPONSE_FIELDS['top-ups'],
};

export function listOffers(ctx: ApiContext, kind: OfferKind, req: ApiRequest): ApiResult {
  const sort = parseSort(req.query, SORTABLE[kind], '-updated_at');
  let rows = ctx.store.all(kind);
  const filter = req.query.get('filter[external_id]');
  if (filter !== null && !ctx.isDisabled('filterExternalId')) rows = rows.filter((r) => r.external_id === filter);
  sortBy(rows, sort, fieldValue);
  const page = paginate(rows, req.query, ctx.limits, req.url);
  return ok({
    data: page.rows.map((r) => presentOffer(kind, r, ctx.representation, imageUrlOf(ctx))),
    meta: page.meta,
    links: page.links,
  });
}

/** What a marketplace whose web shop owns the non-numeric paths answers there. */
const SHOP_PAGE = '<!doctype html><html><head><title>Shop</title></head><body><h1>Offer</h1></body></html>';

export function readRoutes(kind: OfferKind): RouteDef[] {
  const base = `/api/v1/${kind}`;
  return [
    { method: 'GET', path: base, body: 'none', handle: (ctx, req) => listOffers(ctx, kind, req) },
    {
      method: 'GET',
      path: `${base}/{identifier}`,
      body: 'none',
      handle: (ctx, req) =>
        ctx.representation.externalIdPathHtml && !/^\d+$/.test(req.params.identifier ?? '')
          ? { status: 200, body: null, wrote: false, html: SHOP_PAGE }
          : ok(answerOne(ctx, kind, findOffer(ctx, kind, req.params.identifier))),
    },
  ];
}

export function createdStatus(ctx: ApiContext): number {
  return ctx.representation.createStatus201 ? 201 : 200;
}

/** Applies a change to its record; throws an HttpError when the change is refused. */
export type ApplyChange = (ctx: ApiContext, rec: OfferRecord, change: Record<string, unknown>) => void;

/** How an offer kind is created from a POST body: checked field by field, an omitted field stored as its default. */
export interface CreateSpec {
  readonly required: readonly string[];
  readonly rules: Readonly<Record<string, Rule>>;
  readonly defaults: Readonly<Record<string, unknown>>;
  /** Fields the marketplace derives from the new offer's id. */
  readonly idFields?: (id: number) => Record<string, unknown>;
  /** The body as the rules read it, where a switch gives fields other names (default: as sent). */
  readonly prepare?: (ctx: ApiContext, body: Record<string, unknown>) => Record<string, unknown>;
  /** The rules under the context's switches (default: `rules`). */
  readonly rulesFor?: (ctx: ApiContext) => Readonly<Record<string, Rule>>;
}

/** POST /api/v1/{kind} for items and top-ups (an account's body is read by account-input.ts). */
export function createRoute(kind: OfferKind, spec: CreateSpec): RouteDef {
  return {
    method: 'POST',
    path: `/api/v1/${kind}`,
    body: 'json',
    handle(ctx, req) {
      const v = new Validation();
      const body = spec.prepare?.(ctx, req.body) ?? req.body;
      requireFields(body, spec.required, v);
      const { external_id, status, ...fields } = checkFields(body, spec.rulesFor?.(ctx) ?? spec.rules, v);
      v.throwIfAny();
      const rec = ctx.store.create(
        kind,
        external_id as string,
        (status as string | undefined) ?? 'draft',
        { ...spec.defaults, ...fields },
        spec.idFields,
      );
      return wrote(answerOne(ctx, kind, rec), createdStatus(ctx));
    },
  };
}

/** PATCH /api/v1/{kind}/{identifier}: the offer found, the change applied, the offer answered. */
export function updateRoute(kind: OfferKind, apply: ApplyChange, disabledAs?: DisableableRoute): RouteDef {
  return {
    method: 'PATCH',
    path: `/api/v1/${kind}/{identifier}`,
    body: 'json',
    ...(disabledAs === undefined ? {} : { disabledAs }),
    handle(ctx, req) {
      const rec = findOffer(ctx, kind, req.params.identifier);
      const refused = ctx.errorInfoBodies ? databaseRejection(kind, req.body) : undefined;
      if (refused) throw refused;
      apply(ctx, rec, req.body);
      return wrote(answerOne(ctx, kind, rec));
    },
  };
}
