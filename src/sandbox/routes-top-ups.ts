// Top-up offers (4.3): create (external_id is the only required field), list, get, update, and
// bulk-update, which reports each element (updated, not_found, invalid) instead of failing as a whole.
import { wrote, type ApiContext, type RouteDef } from './api-route.ts';
import { checkFields, isPlainObject, requireFields, type Rule } from './field-rules.ts';
import { HttpError, Validation, invalid } from './http-error.ts';
import { answerOne, assertChangeable, createdStatus, findOffer, readRoutes } from './offer-routes.ts';
import type { OfferRecord } from './records.ts';
import { action } from './represent.ts';

export const TOP_UP_STATUSES = ['draft', 'pending', 'listed', 'archived'] as const;
export const WAITING_TIME_UNITS = ['minutes', 'hours', 'days'] as const;

const str = { type: 'string' } as const satisfies Rule;
const count = { type: 'int', min: 0 } as const satisfies Rule;

const RULES: Readonly<Record<string, Rule>> = {
  external_id: { type: 'string', required: true },
  game: str,
  game_name: str,
  service_label: str,
  offer_key: str,
  offer_title: str,
  offer_amount: count,
  offer_unit: str,
  region: str,
  platform: str,
  price: { type: 'cents' },
  currency: str,
  stock: count,
  min_quantity: count,
  waiting_time_value: count,
  waiting_time_unit: { type: 'enum', values: WAITING_TIME_UNITS },
  instructions: str,
  image: str,
  active: { type: 'bool' },
  status: { type: 'enum', values: TOP_UP_STATUSES },
};

const DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.keys(RULES)
    .filter((k) => k !== 'external_id' && k !== 'status')
    .map((k) => [k, null]),
);

/** Checks an update body; returns the change for the store. */
function readUpdate(body: Record<string, unknown>): {
  external_id?: string;
  status?: string;
  fields: Record<string, unknown>;
} {
  const v = new Validation();
  const { external_id, status, ...fields } = checkFields(body, RULES, v);
  v.throwIfAny();
  return {
    fields,
    ...(typeof external_id === 'string' ? { external_id } : {}),
    ...(typeof status === 'string' ? { status } : {}),
  };
}

function applyUpdate(ctx: ApiContext, rec: OfferRecord, body: Record<string, unknown>): void {
  assertChangeable(rec);
  ctx.store.update('top-ups', rec, readUpdate(body));
}

interface BulkResult {
  external_id: string | null;
  id: number | null;
  status: 'updated' | 'not_found' | 'invalid';
  message?: string;
}

function bulkElement(ctx: ApiContext, el: unknown): BulkResult {
  if (!isPlainObject(el))
    return {
      external_id: null,
      id: null,
      status: 'invalid',
      message: 'Each element of offers must be an object with external_id or id.',
    };
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
      message: 'Each element of offers needs external_id (string) or id (integer).',
    };
  // With an id the element is found by id, and an external_id in it is a change like any other field.
  const rec = givenId !== null ? ctx.store.byId('top-ups', givenId) : ctx.store.byExternalId('top-ups', extId!);
  if (!rec) return { external_id: extId, id: givenId, status: 'not_found' };
  const change = givenId !== null ? rest : (({ external_id: _e, ...fields }) => fields)(rest);
  try {
    applyUpdate(ctx, rec, change);
    return { external_id: rec.external_id, id: rec.id, status: 'updated' };
  } catch (err) {
    if (err instanceof HttpError)
      return { external_id: rec.external_id, id: rec.id, status: 'invalid', message: err.message };
    throw err;
  }
}

export const topUpRoutes: readonly RouteDef[] = [
  ...readRoutes('top-ups'),
  {
    method: 'POST',
    path: '/api/v1/top-ups',
    body: 'json',
    handle(ctx, req) {
      const v = new Validation();
      requireFields(req.body, ['external_id'], v);
      const { external_id, status, ...fields } = checkFields(req.body, RULES, v);
      v.throwIfAny();
      const rec = ctx.store.create('top-ups', external_id as string, (status as string | undefined) ?? 'draft', {
        ...DEFAULTS,
        ...fields,
      });
      return wrote(answerOne(ctx, 'top-ups', rec), createdStatus(ctx));
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/top-ups/{identifier}',
    body: 'json',
    handle(ctx, req) {
      const rec = findOffer(ctx, 'top-ups', req.params.identifier);
      applyUpdate(ctx, rec, req.body);
      return wrote(answerOne(ctx, 'top-ups', rec));
    },
  },
  {
    method: 'POST',
    path: '/api/v1/top-ups/bulk-update',
    body: 'json',
    disabledAs: 'topUps.bulkUpdate',
    handle(ctx, req) {
      const offers = req.body.offers;
      if (!Array.isArray(offers)) throw invalid('offers', 'The offers field must be an array of objects.');
      if (offers.length === 0) throw invalid('offers', 'The offers field must have at least one element.');
      const results = offers.map((el) => bulkElement(ctx, el));
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
  },
];
