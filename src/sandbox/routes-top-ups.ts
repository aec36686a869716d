// Top-up offers (4.3): create (external_id is the only required field), list, get, update, bulk-update
// (routes-bulk.ts), and the bulk-remove and DELETE the document does not show (routes-bulk.ts, routes-delete.ts).
import type { ApiContext, RouteDef } from './api-route.ts';
import { checkFields, type Rule } from './field-rules.ts';
import { Validation } from './http-error.ts';
import { assertChangeable, assertStatusAllowed, createRoute, readRoutes, updateRoute } from './offer-routes.ts';
import type { OfferRecord } from './records.ts';
import { bulkRemoveRoute, bulkUpdateRoute } from './routes-bulk.ts';
import { deleteRoute } from './routes-delete.ts';

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
  assertStatusAllowed(ctx, body);
  assertChangeable(rec);
  ctx.store.update('top-ups', rec, readUpdate(body));
}

export const topUpRoutes: readonly RouteDef[] = [
  ...readRoutes('top-ups'),
  createRoute('top-ups', { required: ['external_id'], rules: RULES, defaults: DEFAULTS }),
  updateRoute('top-ups', applyUpdate),
  bulkUpdateRoute('top-ups', applyUpdate, true),
  bulkRemoveRoute('top-ups'),
  deleteRoute('top-ups'),
];
