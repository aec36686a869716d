// DELETE /{items,top-ups}/{identifier}: the archive route the document shows for accounts only. Served behind
// representation.deleteArchives; it archives as account DELETE does (listed as archived), or with deleteRemoves
// forgets the offer, since the document says nothing of what such a DELETE leaves.
import { ok, type RouteDef, wrote } from './api-route.ts';
import { HttpError } from './http-error.ts';
import { assertChangeable, findOffer } from './offer-routes.ts';
import { action } from './represent.ts';
import type { OfferKind } from './sandbox-options.ts';

export function deleteRoute(kind: Exclude<OfferKind, 'accounts'>): RouteDef {
  const path = `/api/v1/${kind}/{identifier}`;
  return {
    method: 'DELETE',
    path,
    body: 'none',
    handle(ctx, req) {
      if (!ctx.representation.deleteArchives)
        // What a router answers for a method the path does not serve.
        throw new HttpError(
          405,
          `The DELETE method is not supported for route api/v1/${kind}/${req.params.identifier}. ` +
            'Supported methods: GET, HEAD, PATCH.',
          undefined,
          { allow: 'GET, HEAD, PATCH' },
        );
      const rec = findOffer(ctx, kind, req.params.identifier);
      assertChangeable(rec);
      if (ctx.representation.deleteRemoves) {
        ctx.store.remove(kind, rec);
        return wrote(action({ success: true, deleted_id: rec.id }, ctx.representation));
      }
      const body = action({ success: true, archived: true }, ctx.representation);
      if (rec.status === 'archived') return ok(body); // already archived: nothing to write
      ctx.store.update(kind, rec, { status: 'archived' });
      return wrote(body);
    },
  };
}
