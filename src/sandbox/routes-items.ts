// Item offers (4.2): create, list, get, update, and the bulk-update and bulk-remove the document does not
// show (routes-bulk.ts), and DELETE behind a switch (routes-delete.ts). An update carries only the five fields
// of 2.5; any other key is refused by name, so a client that sends more is caught.
import type { ApiContext, RouteDef } from './api-route.ts';
import { checkFields, type Rule } from './field-rules.ts';
import { Validation } from './http-error.ts';
import { assertChangeable, assertStatusAllowed, createRoute, readRoutes, updateRoute } from './offer-routes.ts';
import type { OfferRecord } from './sandbox-records.ts';
import { bulkRemoveRoute, bulkUpdateRoute } from './routes-bulk.ts';
import { deleteRoute } from './routes-delete.ts';

export const ITEM_STATUSES = ['draft', 'pending', 'listed', 'archived', 'sold'] as const;
export const ITEM_UPDATE_FIELDS = ['title', 'price', 'stock', 'status', 'description'] as const;
export const PLATFORM_ITEM_ID_BASE = 700_000;

const RULES: Readonly<Record<string, Rule>> = {
  external_id: { type: 'string', required: true },
  title: { type: 'string', required: true },
  price: { type: 'cents' },
  type: { type: 'string' },
  game: { type: 'string' },
  server: { type: 'string' },
  stock: { type: 'int', min: 0 },
  status: { type: 'enum', values: ITEM_STATUSES },
  description: { type: 'string' },
};

const DEFAULTS = { type: null, game: null, server: null, stock: null, description: null };

function applyUpdate(ctx: ApiContext, rec: OfferRecord, body: Record<string, unknown>): void {
  const v = new Validation();
  const takesGame = ctx.representation.itemUpdateTakesGame === true;
  for (const key of Object.keys(body)) {
    if (!(ITEM_UPDATE_FIELDS as readonly string[]).includes(key) && !(takesGame && key === 'game'))
      v.add(key, `The ${key} field cannot be updated; an item update takes only ${ITEM_UPDATE_FIELDS.join(', ')}.`);
  }
  const { status, ...fields } = checkFields(body, RULES, v);
  v.throwIfAny();
  assertStatusAllowed(ctx, body);
  assertChangeable(rec);
  ctx.store.update('items', rec, { fields, ...(typeof status === 'string' ? { status } : {}) });
}

export const itemRoutes: readonly RouteDef[] = [
  ...readRoutes('items'),
  createRoute('items', {
    required: ['external_id', 'title', 'price'],
    rules: RULES,
    defaults: DEFAULTS,
    idFields: (id) => ({ platform_item_id: PLATFORM_ITEM_ID_BASE + id }),
  }),
  updateRoute('items', applyUpdate),
  // The real server's bulk-update reads no game: dropped there, as it is, when the single PATCH takes it.
  bulkUpdateRoute(
    'items',
    (ctx, rec, body) => {
      const { game: _game, ...rest } = body;
      applyUpdate(ctx, rec, ctx.representation.itemUpdateTakesGame === true ? rest : body);
    },
    false,
  ),
  bulkRemoveRoute('items'),
  deleteRoute('items'),
];
