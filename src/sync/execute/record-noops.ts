// Actions that send nothing: their outcomes go to the report, and what they tell of the remote to the state
// db (a sale, an offer gone, an adoption).
import type { ExecutionContext } from './execution-context.ts';
import { seen } from './offer-events.ts';
import { offerTitle } from '../fields/offer-fields.ts';
import type { AdoptAction, NoopAction } from '../plan/plan-actions.ts';

export async function recordNoop(ctx: ExecutionContext, n: NoopAction): Promise<void> {
  const { kind, externalId } = n;
  const fields = n.changes?.map((c) => c.field);
  switch (n.reason) {
    case 'sold':
    case 'refunded':
    case 'processing': {
      const sale =
        n.remoteId === undefined
          ? undefined
          : await ctx.markLocked(
              kind,
              externalId,
              n.remote
                ? { ...n.remote, status: n.reason }
                : { id: n.remoteId, externalId, status: n.reason, fields: {} },
            );
      // A sale since the last run names the offer, so the seller can hand over the right account.
      const told = sale
        ? {
            newSale: true as const,
            reason: n.reason,
            remoteId: sale.id,
            ...(sale.title !== null ? { title: sale.title } : {}),
          }
        : {};
      ctx.report({ kind, externalId, outcome: 'sold', message: n.detail, ...told }, false);
      return;
    }
    case 'gone':
      ctx.event(seen(kind, externalId, 'gone', n.detail ?? null));
      await ctx.store.deleteOffer(kind, externalId);
      ctx.report({ kind, externalId, outcome: 'skipped', message: n.detail }, false);
      return;
    case 'unchanged':
      if (n.loginFingerprint !== undefined)
        await ctx.store.upsertOffer(kind, externalId, { loginFingerprint: n.loginFingerprint });
      ctx.report({ kind, externalId, outcome: 'unchanged' }, false);
      return;
    case 'blocked':
      ctx.report(
        { kind, externalId, outcome: 'blocked', message: n.detail, fields, ...(n.urgent ? { urgent: n.urgent } : {}) },
        false,
      );
      return;
    case 'drift-reported':
      // The seller chose to be told, not to have it patched back: reported, not a failure.
      ctx.report({ kind, externalId, outcome: 'skipped', message: n.detail, fields }, false);
      return;
    case 'backoff':
    case 'parked':
      ctx.report({ kind, externalId, outcome: 'held', message: n.detail }, false);
      return;
    case 'unmanaged':
    case 'archived':
      return;
    default:
      ctx.report({ kind, externalId, outcome: 'skipped', message: n.detail ?? n.reason }, false);
      return;
  }
}

/**
 * Remembers the mapping of an offer found under its external_id. `alone`: no update follows, so what is live
 * is what offersync would have sent, and it is recorded as applied.
 */
export async function recordAdopt(ctx: ExecutionContext, a: AdoptAction, alone: boolean): Promise<void> {
  const prev = await ctx.store.getOffer(a.kind, a.externalId);
  await ctx.store.upsertOffer(a.kind, a.externalId, {
    remoteId: a.remote.id,
    lastApplied: prev?.remoteId === a.remote.id ? prev.lastApplied : null,
    remoteStatus: a.remote.status ?? null,
    remoteUpdatedAt: a.remote.updatedAt ?? null,
    managed: true,
    sourceFile: a.desired.source.file,
    title: offerTitle(a.fields),
  });
  ctx.event(seen(a.kind, a.externalId, 'adopted', a.reason));
  if (!alone) return;
  await ctx.applied(a.desired, a.remote, {}, a.fields);
  ctx.report({ kind: a.kind, externalId: a.externalId, outcome: 'adopted', file: a.desired.source.file });
}
