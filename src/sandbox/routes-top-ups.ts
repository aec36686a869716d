// Top-up offers (4.3): create (external_id is the only required field), list, get, update, bulk-update
// (routes-bulk.ts), and the bulk-remove and DELETE the document does not show (routes-bulk.ts, routes-delete.ts).
import type { ApiContext, RouteDef } from './api-route.ts';
import { checkFields, type Rule } from './field-rules.ts';
import { Validation } from './http-error.ts';
import { assertChangeable, assertStatusAllowed, createRoute, readRoutes, updateRoute } from './offer-routes.ts';
import type { OfferRecord } from './sandbox-records.ts';
import { fromRealNames, realBulkElement } from './real-top-up-names.ts';
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

/** The real server keeps the amount in a DECIMAL column: 12.5 is an amount like 1000. */
const REAL_RULES: Readonly<Record<string, Rule>> = { ...RULES, offer_amount: { type: 'decimal', min: 0 } };

const rulesOf = (ctx: ApiContext): Readonly<Record<string, Rule>> =>
  ctx.representation.realTopUpNames ? REAL_RULES : RULES;

/** The body under the document's names: the real server's names are read too when its switch is on. */
const prepare = (ctx: ApiContext, body: Record<string, unknown>): Record<string, unknown> =>
  ctx.representation.realTopUpNames ? fromRealNames(body) : body;

const DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.keys(RULES)
    .filter((k) => k !== 'external_id' && k !== 'status')
    .map((k) => [k, null]),
);

/** Checks an update body; returns the change for the store. */
function readUpdate(
  body: Record<string, unknown>,
  rules: Readonly<Record<string, Rule>>,
): {
  external_id?: string;
  status?: string;
  fields: Record<string, unknown>;
} {
  const v = new Validation();
  const { external_id, status, ...fields } = checkFields(body, rules, v);
  v.throwIfAny();
  return {
    fields,
    ...(typeof external_id === 'string' ? { external_id } : {}),
    ...(typeof status === 'string' ? { status } : {}),
  };
}

function applyUpdate(ctx: ApiContext, rec: OfferRecord, sent: Record<string, unknown>): void {
  const body = prepare(ctx, sent);
  assertStatusAllowed(ctx, body);
  assertChangeable(rec);
  ctx.store.update('top-ups', rec, readUpdate(body, rulesOf(ctx)));
}

/** A bulk element's change: the real route reads a few keys of it and ignores the rest. */
function applyBulk(ctx: ApiContext, rec: OfferRecord, change: Record<string, unknown>): void {
  applyUpdate(ctx, rec, ctx.representation.realTopUpNames ? realBulkElement(change) : change);
}

export const topUpRoutes: readonly RouteDef[] = [
  ...readRoutes('top-ups'),
  createRoute('top-ups', { required: ['external_id'], rules: RULES, defaults: DEFAULTS, prepare, rulesFor: rulesOf }),
  updateRoute('top-ups', applyUpdate),
  bulkUpdateRoute('top-ups', applyBulk, true),
  bulkRemoveRoute('top-ups'),
  deleteRoute('top-ups'),
];
