// The bulk routes of a marketplace of this kind, documented or not: POST /{kind}/bulk-update reports each
// element (updated, not_found, invalid) instead of failing as a whole; POST /{kind}/bulk-remove archives and
// counts. The switches of SandboxBulk decide whether the undocumented ones are served, the key the array
// travels under (named only in the 422 that refuses another) and the most elements one call takes.
import type { ApiContext, ApiResult, RouteDef } from './api-route.ts';
import { isPlainObject } from './field-rules.ts';
import { HttpError, invalid, Validation } from './http-error.ts';
import type { OfferRecord } from './records.ts';
import { action } from './represent.ts';
import type { OfferKind } from './sandbox-options.ts';

interface BulkResult {
  external_id: string | null;
  id: number | null;
  status: 'updated' | 'not_found' | 'invalid';
  message?: string;
}

/** Applies one element's change to its record; throws an HttpError when the change is refused. */
export type ApplyChange = (ctx: ApiContext, rec: OfferRecord, change: Record<string, unknown>) => void;

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

function bulkElement(ctx: ApiContext, kind: OfferKind, apply: ApplyChange, el: unknown): BulkResult {
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
      const results = elementsOf(ctx, req.body, ctx.bulk.updateKey ?? 'offers').map((el) =>
        bulkElement(ctx, kind, apply, el),
      );
      const updated = results.filter((r) => r.status === 'updated').length;
      const notFound = results.filter((r) => r.status === 'not_found').length;
      return {
        status: 200,
        body: action(
          ctx.representation.bulkCountsOnly
            ? { success: true, updated, not_found: notFound, invalid: results.length - updated - notFound }
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
      let removed = 0;
      let notFound = 0;
      let changed = false;
      for (const i of ids as number[]) {
        const rec = ctx.store.byId(kind, i);
        if (!rec) notFound++;
        else {
          if (rec.status !== 'archived') {
            ctx.store.update(kind, rec, { status: 'archived' });
            changed = true;
          }
          removed++; // an offer already archived still counts as removed
        }
      }
      const body = action({ success: true, processed: ids.length, removed, not_found: notFound }, ctx.representation);
      return { status: 200, body, wrote: changed };
    },
  };
}
