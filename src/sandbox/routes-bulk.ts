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
import { action } from './represent.ts';
import type { OfferKind } from './sandbox-options.ts';

interface BulkResult {
  external_id: string | null;
  id: number | null;
  status: 'updated' | 'removed' | 'not_found' | 'invalid' | 'failed';
  message?: string;
}

/** Whether bulk.failEvery leaves the element at `index` (0-based) of a call undone. */
const dropped = (ctx: ApiContext, index: number): boolean =>
  ctx.bulk.failEvery !== undefined && (index + 1) % ctx.bulk.failEvery === 0;

const DROPPED_MESSAGE = 'The offer could not be processed at this time; retry it.';

function notServed(path: string): HttpError {
  return new HttpError(404, `The route ${path} could not be found.`);
}

/** The array of a bulk body under the key this sandbox reads, refused as a marketplace words it. */
function elementsOf(ctx: ApiContext, body: Record<string, unknown>, key: string): unknown[] {
  const list = body[key];
  if (list === undefined) throw invalid(key, `The ${key} array is required.`);
  if (!Array.isArray(list)) throw invalid(key, `The ${key} field must be an array.`);
  if (list.length === 0) throw invalid(key, `The ${key} field must have at least one element.`);
  const limit = ctx.bulk.limit;
  if (limit !== undefined && list.length > limit)
    throw invalid(key, `The ${key} array may contain at most ${limit} elements.`);
  return list;
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
  // With an id the element is found by id, and an external_id in it is a change like any other field.
  const rec = givenId !== null ? ctx.store.byId(kind, givenId) : ctx.store.byExternalId(kind, extId!);
  if (!rec) return { external_id: extId, id: givenId, status: 'not_found' };
  // An element names its offer by id, external_id or both: the offer's own external_id beside its id is a name,
  // not a change; another one is a change like any other field.
  const named = givenId === null || rest.external_id === rec.external_id;
  const change = named ? (({ external_id: _e, ...fields }) => fields)(rest) : rest;
  if (dropped(ctx, index))
    return { external_id: rec.external_id, id: rec.id, status: 'failed', message: DROPPED_MESSAGE };
  // The database's refusal is not caught per element: the call fails, with the elements before it written.
  const refused = ctx.errorInfoBodies ? databaseRejection(kind, change) : undefined;
  if (refused) throw refused;
  try {
    apply(ctx, rec, change);
    return { external_id: rec.external_id, id: rec.id, status: 'updated' };
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
      const results = elementsOf(ctx, req.body, ctx.bulk.updateKey ?? 'offers').map((el, i) =>
        bulkElement(ctx, kind, apply, el, i),
      );
      const updated = results.filter((r) => r.status === 'updated').length;
      const notFound = results.filter((r) => r.status === 'not_found').length;
      const failed = results.filter((r) => r.status === 'failed').length;
      const invalidCount = results.length - updated - notFound - failed;
      return {
        status: 200,
        body: action(
          ctx.representation.bulkCountsOnly
            ? { success: true, updated, not_found: notFound, invalid: invalidCount, ...(failed > 0 ? { failed } : {}) }
            : { success: true, updated, not_found: notFound, results },
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
      const ids = elementsOf(ctx, req.body, 'ids');
      const v = new Validation();
      if (!ids.every((i) => typeof i === 'number' && Number.isSafeInteger(i)))
        v.add('ids', 'The ids field must be an array of integers.');
      v.throwIfAny();
      let changed = false;
      const results = (ids as number[]).map((i, index): BulkResult => {
        const rec = ctx.store.byId(kind, i);
        if (!rec) return { external_id: null, id: i, status: 'not_found' };
        const named = { external_id: rec.external_id, id: rec.id };
        if (dropped(ctx, index)) return { ...named, status: 'failed', message: DROPPED_MESSAGE };
        if (rec.status !== 'archived') {
          ctx.store.update(kind, rec, { status: 'archived' });
          changed = true;
        }
        return { ...named, status: 'removed' }; // an offer already archived still counts as removed
      });
      const removed = results.filter((r) => r.status === 'removed').length;
      const notFound = results.filter((r) => r.status === 'not_found').length;
      const counts = { success: true, processed: ids.length, removed, not_found: notFound };
      const body = action(ctx.representation.bulkCountsOnly ? counts : { ...counts, results }, ctx.representation);
      return { status: 200, body, wrote: changed };
    },
  };
}
