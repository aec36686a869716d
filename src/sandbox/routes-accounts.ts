// Account offers (4.1): create, list, get, update (served though the document does not list it),
// DELETE = archive, bulk-remove.
import { readAccountInput } from './account-input.ts';
import { ok, wrote, type ApiContext, type RouteDef } from './api-route.ts';
import { Validation } from './http-error.ts';
import { answerOne, assertChangeable, createdStatus, findOffer, readRoutes, updateRoute } from './offer-routes.ts';
import type { OfferRecord } from './sandbox-records.ts';
import { action } from './represent.ts';
import { realAccountBulkRemove } from './routes-bulk.ts';

const imageExists = (ctx: ApiContext) => (id: number) => ctx.store.images.has(id);

/** Platform ids are a different number from the offer id, as on the marketplace. */
export const PLATFORM_ACCOUNT_ID_BASE = 900_000;

function applyUpdate(ctx: ApiContext, rec: OfferRecord, body: Record<string, unknown>): void {
  assertChangeable(rec);
  ctx.store.update('accounts', rec, readAccountInput(body, 'update', imageExists(ctx), rec.fields));
}

function archive(ctx: ApiContext, rec: OfferRecord): void {
  ctx.store.update('accounts', rec, { status: 'archived' });
}

function readBulkRemove(body: Record<string, unknown>): { externalIds: string[]; ids: number[] } {
  const v = new Validation();
  const externalIds = body.external_ids ?? [];
  const ids = body.ids ?? [];
  if (!Array.isArray(externalIds) || !externalIds.every((e) => typeof e === 'string'))
    v.add('external_ids', 'The external_ids field must be an array of strings.');
  if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'number' && Number.isSafeInteger(i)))
    v.add('ids', 'The ids field must be an array of integers.');
  v.throwIfAny();
  const e = externalIds as string[];
  const i = ids as number[];
  if (e.length === 0 && i.length === 0) {
    v.add('external_ids', 'The external_ids field is required when ids is not present (give at least one identifier).');
    v.throwIfAny();
  }
  return { externalIds: e, ids: i };
}

export const accountRoutes: readonly RouteDef[] = [
  ...readRoutes('accounts'),
  {
    method: 'POST',
    path: '/api/v1/accounts',
    body: 'json',
    handle(ctx, req) {
      const input = readAccountInput(req.body, 'create', imageExists(ctx));
      const rec = ctx.store.create(
        'accounts',
        input.external_id!,
        input.status!,
        input.fields,
        (id) => ({ platform_account_id: PLATFORM_ACCOUNT_ID_BASE + id }),
        ctx.representation.accountsDuplicateExternalId === true,
      );
      return wrote(answerOne(ctx, 'accounts', rec), createdStatus(ctx));
    },
  },
  updateRoute('accounts', applyUpdate, 'accounts.update'),
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{identifier}',
    body: 'none',
    handle(ctx, req) {
      const rec = findOffer(ctx, 'accounts', req.params.identifier);
      const body = action({ success: true, archived: true }, ctx.representation);
      if (rec.status === 'archived') return ok(body); // already archived: nothing to write
      archive(ctx, rec);
      return wrote(body);
    },
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/bulk-remove',
    body: 'json',
    disabledAs: 'accounts.bulkRemove',
    handle(ctx, req) {
      const { externalIds, ids } = readBulkRemove(req.body);
      if (ctx.bulk.realAnswers) return realAccountBulkRemove(ctx, externalIds, ids);
      let removed = 0;
      let notFound = 0;
      const match = (rec: OfferRecord | undefined) => {
        if (!rec) notFound++;
        else {
          if (rec.status !== 'archived') archive(ctx, rec);
          removed++; // an offer already archived still counts as removed
        }
      };
      for (const e of externalIds) match(ctx.store.byExternalId('accounts', e));
      for (const i of ids) match(ctx.store.byId('accounts', i));
      const body = action(
        { success: true, processed: externalIds.length + ids.length, removed, not_found: notFound },
        ctx.representation,
      );
      return removed > 0 ? wrote(body) : ok(body);
    },
  },
];
