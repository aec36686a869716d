// The bulk routes of a marketplace of this kind, documented or not: POST /{kind}/bulk-update reports each
// element (updated, not_found, invalid, failed) instead of failing as a whole; POST /{kind}/bulk-remove archives,
// counts and reports each element too. The switches of SandboxBulk decide whether the undocumented ones are
// served, the key the array travels under (named only in the 422 that refuses another), the most elements one
// call takes, and which elements a loaded marketplace leaves undone (failEvery).
import type { ApiContext, ApiResult, RouteDef } from './api-route.ts';
import { databaseRejection } from './database-error.ts';
import { isPlainObject } from './field-rules.ts';
import { HttpError, invalid, Validation } from './http-error.ts';
import type { ApplyChange } from './offer-routes.ts';
import type { OfferRecord } from './sandbox-records.ts';
import { action, presentOffer } from './represent.ts';
import type { OfferKind } from './sandbox-options.ts';

interface BulkResult {
  external_id: string | null;
  id: number | null;
  status: 'updated' | 'removed' | 'not_found' | 'invalid' | 'failed';
  message?: string;
  /** The offer the element reached, for the answer's rows (bulk.realAnswers). */
  rec?: OfferRecord;
  /** The element's identifier as sent, for the answer's not_found list (bulk.realAnswers). */
  sent?: string | number;
}

/** The real top-up route's batch limit (representation.realTopUpNames). */
const REAL_TOP_UP_LIMIT = 100;

/** Whether bulk.failEvery leaves the element at `index` (0-based) of a call undone. */
const dropped = (ctx: ApiContext, index: number): boolean =>
  ctx.bulk.failEvery !== undefined && (index + 1) % ctx.bulk.failEvery === 0;

const DROPPED_MESSAGE = 'The offer could not be processed at this time; retry it.';

function notServed(path: string): HttpError {
  return new HttpError(404, `The route ${path} could not be found.`);
}

/** The array of a bulk body under the key this sandbox reads, refused as a marketplace words it. */
function elementsOf(ctx: ApiContext, body: Record<string, unknown>, key: string, limit = ctx.bulk.limit): unknown[] {
  const list = body[key];
  if (list === undefined) throw invalid(key, `The ${key} array is required.`);
  if (!Array.isArray(list)) throw invalid(key, `The ${key} field must be an array.`);
  if (list.length === 0) throw invalid(key, `The ${key} field must have at least one element.`);
  if (limit !== undefined && list.length > limit)
    throw invalid(key, `The ${key} array may contain at most ${limit} elements.`);
  return list;
}

/** The real top-up bulk-update's array: under `topups` or `top_ups`, at most 100, refused in its words. */
function realTopUpElements(ctx: ApiContext, body: Record<string, unknown>): unknown[] {
  const list = body.topups ?? body.top_ups;
  if (!Array.isArray(list) || list.length === 0) throw invalid('topups', 'topups array is required.');
  const limit = Math.min(ctx.bulk.limit ?? REAL_TOP_UP_LIMIT, REAL_TOP_UP_LIMIT);
  if (list.length > limit) throw invalid('topups', `You can update at most ${limit} top-ups at once.`);
  return list;
}

/** The array a bulk-update reads, under the key and limit of the marketplace's switches. */
function updateElements(ctx: ApiContext, kind: OfferKind, body: Record<string, unknown>): unknown[] {
  // The real top-up route's key is its own, whatever key updateKey gives the other bulk-updates (items).
  if (kind === 'top-ups' && ctx.representation.realTopUpNames) return realTopUpElements(ctx, body);
  return elementsOf(ctx, body, ctx.bulk.updateKey ?? 'offers');
}

/**
 * bulk.resolveExternalIdFirst: an identifier as the real server resolves it, an all-digit one (a number, or a
 * string of digits) as the internal id (is_numeric), any other as an external_id.
 */
function resolveLoosely(ctx: ApiContext, kind: OfferKind, identifier: unknown): OfferRecord | undefined {
  if (typeof identifier === 'number')
    return Number.isSafeInteger(identifier) ? ctx.store.byId(kind, identifier) : undefined;
  if (typeof identifier !== 'string' || identifier === '') return undefined;
  return /^\d+$/.test(identifier) ? ctx.store.byId(kind, Number(identifier)) : ctx.store.byExternalId(kind, identifier);
}

function bulkElement(ctx: ApiContext, kind: OfferKind, apply: ApplyChange, el: unknown, index: number): BulkResult {
  if (!isPlainObject(el))
    return { external_id: null, id: null, status: 'invalid', message: 'Each element must be an object with an id.' };
  const { id, ...rest } = el;
  const extId = typeof el.external_id === 'string' ? el.external_id : null;
  const givenId = typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
  if (id !== undefined && givenId === null)
    return { external_id: extId, id: null, status: 'invalid', message: 'The id field must be an integer.' };
  if (givenId === null && extId === null)
    return {
      external_id: null,
      id: null,
      status: 'invalid',
      message: 'Each element needs external_id (string) or id (integer).',
    };
  const sent = extId ?? givenId ?? undefined;
  // With an id the element is found by id, and an external_id in it is a change like any other field; the real
  // server reads the external_id first, and an all-digit one as an id.
  const byExternalIdFirst =
    ctx.bulk.resolveExternalIdFirst && (extId !== null || typeof el.external_id === 'number')
      ? resolveLoosely(ctx, kind, el.external_id)
      : undefined;
  const rec =
    byExternalIdFirst ?? (givenId !== null ? ctx.store.byId(kind, givenId) : ctx.store.byExternalId(kind, extId!));
  if (!rec) return { external_id: extId, id: givenId, status: 'not_found', ...(sent !== undefined ? { sent } : {}) };
  // An element names its offer by id, external_id or both: the offer's own external_id beside its id is a name,
  // not a change; another one is a change like any other field.
  const named = givenId === null || rest.external_id === rec.external_id || byExternalIdFirst !== undefined;
  const change = named ? (({ external_id: _e, ...fields }) => fields)(rest) : rest;
  if (dropped(ctx, index))
    return { external_id: rec.external_id, id: rec.id, status: 'failed', message: DROPPED_MESSAGE };
  // The database's refusal is not caught per element: the call fails, with the elements before it written.
  const refused = ctx.errorInfoBodies ? databaseRejection(kind, change) : undefined;
  if (refused) throw refused;
  try {
    apply(ctx, rec, change);
    return { external_id: rec.external_id, id: rec.id, status: 'updated', rec };
  } catch (err) {
    if (err instanceof HttpError)
      return { external_id: rec.external_id, id: rec.id, status: 'invalid', message: err.message };
    throw err;
  }
}

/** POST /api/v1/{kind}/bulk-update; `documented`: served whatever the switches say. */
export function bulkUpdateRoute(kind: OfferKind, apply: ApplyChange, documented: boolean): RouteDef {
  const path = `/api/v1/${kind}/bulk-update`;
  return {
    method: 'POST',
    path,
    body: 'json',
    disabledAs: kind === 'items' ? 'items.bulkUpdate' : 'topUps.bulkUpdate',
    handle(ctx, req): ApiResult {
      if (!documented && !ctx.bulk.undocumented) throw notServed(path);
      const results = updateElements(ctx, kind, req.body).map((el, i) => bulkElement(ctx, kind, apply, el, i));
      const updated = results.filter((r) => r.status === 'updated').length;
      const notFound = results.filter((r) => r.status === 'not_found').length;
      const failed = results.filter((r) => r.status === 'failed').length;
      const invalidCount = results.length - updated - notFound - failed;
      if (ctx.bulk.realAnswers) return { status: 200, body: realUpdateAnswer(ctx, kind, results), wrote: updated > 0 };
      return {
        status: 200,
        body: action(
          ctx.representation.bulkCountsOnly
            ? { success: true, updated, not_found: notFound, invalid: invalidCount, ...(failed > 0 ? { failed } : {}) }
            : { success: true, updated, not_found: notFound, results: results.map(itemised) },
          ctx.representation,
        ),
        wrote: updated > 0,
      };
    },
  };
}

/** POST /api/v1/{kind}/bulk-remove for items and top-ups (the documented account one is routes-accounts.ts). */
export function bulkRemoveRoute(kind: OfferKind): RouteDef {
  const path = `/api/v1/${kind}/bulk-remove`;
  return {
    method: 'POST',
    path,
    body: 'json',
    disabledAs: kind === 'items' ? 'items.bulkRemove' : 'topUps.bulkRemove',
    handle(ctx, req): ApiResult {
      if (!ctx.bulk.undocumented) throw notServed(path);
      // The real server also takes the external ids it is given; this sandbox reads them with its switch.
      const byExternalId = ctx.bulk.resolveExternalIdFirst === true && req.body.external_ids !== undefined;
      const named = byExternalId ? elementsOf(ctx, req.body, 'external_ids') : [];
      const ids = byExternalId && req.body.ids === undefined ? [] : elementsOf(ctx, req.body, 'ids');
      const v = new Validation();
      if (!ids.every((i) => typeof i === 'number' && Number.isSafeInteger(i)))
        v.add('ids', 'The ids field must be an array of integers.');
      if (!named.every((e) => typeof e === 'string' || typeof e === 'number'))
        v.add('external_ids', 'The external_ids field must be an array of strings.');
      v.throwIfAny();
      let changed = false;
      const identifiers: { readonly sent: string | number; readonly rec: OfferRecord | undefined }[] = [
        ...(named as (string | number)[]).map((e) => ({ sent: e, rec: resolveLoosely(ctx, kind, e) })),
        ...(ids as number[]).map((i) => ({ sent: i, rec: ctx.store.byId(kind, i) })),
      ];
      const results = identifiers.map(({ sent, rec }, index): BulkResult => {
        if (!rec) return { external_id: null, id: typeof sent === 'number' ? sent : null, status: 'not_found', sent };
        const found = { external_id: rec.external_id, id: rec.id };
        if (dropped(ctx, index)) return { ...found, status: 'failed', message: DROPPED_MESSAGE };
        if (rec.status !== 'archived') {
          ctx.store.update(kind, rec, { status: 'archived' });
          changed = true;
        }
        return { ...found, status: 'removed', rec }; // an offer already archived still counts as removed
      });
      if (ctx.bulk.realAnswers) return { status: 200, body: realRemoveAnswer(ctx, kind, results), wrote: changed };
      const removed = results.filter((r) => r.status === 'removed').length;
      const notFound = results.filter((r) => r.status === 'not_found').length;
      const counts = { success: true, processed: identifiers.length, removed, not_found: notFound };
      const body = action(
        ctx.representation.bulkCountsOnly ? counts : { ...counts, results: results.map(itemised) },
        ctx.representation,
      );
      return { status: 200, body, wrote: changed };
    },
  };
}

/** Only the API fields of a result, as the sandbox's own answers itemise them. */
const itemised = ({ rec: _r, sent: _s, ...r }: BulkResult): Omit<BulkResult, 'rec' | 'sent'> => r;

/** A row of a real answer: the offer as stored now, in the current representation. */
const rowOf = (ctx: ApiContext, kind: OfferKind, r: BulkResult): Record<string, unknown> | undefined =>
  r.rec ? presentOffer(kind, r.rec, ctx.representation) : undefined;

/** bulk.realAnswers: the real server's bulk-update answer, updated[] holding the rows as stored after it. */
function realUpdateAnswer(ctx: ApiContext, kind: OfferKind, results: readonly BulkResult[]): Record<string, unknown> {
  const updated = results.filter((r) => r.status === 'updated').flatMap((r) => rowOf(ctx, kind, r) ?? []);
  const notFound = results.filter((r) => r.status === 'not_found').map((r) => r.sent ?? null);
  return action(
    {
      message: 'Bulk update completed.',
      data: { updated_count: updated.length, not_found_count: notFound.length, updated, not_found: notFound },
    },
    ctx.representation,
  );
}

/** bulk.realAnswers: the real server's bulk-remove answer, archived[] the rows as stored after it. */
export function realRemoveAnswer(
  ctx: ApiContext,
  kind: OfferKind,
  results: readonly BulkResult[],
  alreadySold: readonly OfferRecord[] = [],
): Record<string, unknown> {
  const archived = results.filter((r) => r.status === 'removed').flatMap((r) => rowOf(ctx, kind, r) ?? []);
  const missing = results.filter((r) => r.status === 'not_found');
  const idsKey = kind === 'accounts' ? 'lolboost_account_ids' : kind === 'items' ? 'lolboost_item_ids' : 'ids';
  const sold = kind === 'accounts' ? { already_sold_count: alreadySold.length } : {};
  const soldRows =
    kind === 'accounts' ? { already_sold: alreadySold.map((r) => presentOffer(kind, r, ctx.representation)) } : {};
  return action(
    {
      message: 'Bulk remove completed.',
      data: {
        archived_count: archived.length,
        ...sold,
        not_found_count: missing.length,
        archived,
        ...soldRows,
        not_found: {
          external_ids: missing.flatMap((r) => (typeof r.sent === 'string' ? [r.sent] : [])),
          [idsKey]: missing.flatMap((r) => (typeof r.sent === 'number' ? [r.sent] : [])),
        },
      },
    },
    ctx.representation,
  );
}

/**
 * The documented account bulk-remove under bulk.realAnswers: sold accounts are left as they are and listed as
 * already sold, the rest archived; external ids resolved as the real server does with resolveExternalIdFirst.
 */
export function realAccountBulkRemove(
  ctx: ApiContext,
  externalIds: readonly string[],
  ids: readonly number[],
): ApiResult {
  const find = (e: string) =>
    ctx.bulk.resolveExternalIdFirst ? resolveLoosely(ctx, 'accounts', e) : ctx.store.byExternalId('accounts', e);
  const identifiers = [
    ...externalIds.map((e) => ({ sent: e as string | number, rec: find(e) })),
    ...ids.map((i) => ({ sent: i as string | number, rec: ctx.store.byId('accounts', i) })),
  ];
  const alreadySold: OfferRecord[] = [];
  const results: BulkResult[] = [];
  let changed = false;
  for (const { sent, rec } of identifiers) {
    if (!rec) results.push({ external_id: null, id: null, status: 'not_found', sent });
    else if (rec.status === 'sold') alreadySold.push(rec);
    else {
      if (rec.status !== 'archived') {
        ctx.store.update('accounts', rec, { status: 'archived' });
        changed = true;
      }
      results.push({ external_id: rec.external_id, id: rec.id, status: 'removed', rec });
    }
  }
  return { status: 200, body: realRemoveAnswer(ctx, 'accounts', results, alreadySold), wrote: changed };
}
