// The single-offer archive route: DELETE for accounts, PATCH status=archived for items and top-ups (the
// document gives items no archive route).
import { failure, isDefinitelyNotFound } from './errors.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import type { ArchiveAction } from './plan.ts';

/** Records an archive the marketplace confirmed. */
export async function archived(ctx: ExecutionContext, a: ArchiveAction): Promise<void> {
  await ctx.store.upsertOffer(a.kind, a.externalId, { remoteStatus: 'archived' });
  ctx.report({ kind: a.kind, externalId: a.externalId, outcome: 'archived', message: a.reason });
}

/** An offer a definite 404 says is not there any more: forgotten and reported skipped, not failed. */
export async function alreadyGone(ctx: ExecutionContext, a: ArchiveAction): Promise<void> {
  await ctx.store.deleteOffer(a.kind, a.externalId);
  const message = 'already gone from the marketplace';
  ctx.report({ kind: a.kind, externalId: a.externalId, outcome: 'skipped', message });
}

export async function archiveOne(ctx: ExecutionContext, a: ArchiveAction): Promise<void> {
  try {
    await ctx.journaled('archive', a.kind, [a.externalId], async () => {
      const opts = { priority: PRIORITY.archive };
      if (a.kind === 'account') return ctx.client.accounts.archive({ id: a.remoteId }, opts);
      const resource = a.kind === 'item' ? ctx.client.items : ctx.client.topUps;
      return resource.update({ id: a.remoteId }, { status: 'archived' }, opts);
    });
    await archived(ctx, a);
  } catch (err) {
    if (isDefinitelyNotFound(err)) return alreadyGone(ctx, a);
    ctx.report({ kind: a.kind, externalId: a.externalId, ...failure(err, 'archive failed: ') });
  }
}
