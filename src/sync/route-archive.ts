// The single-offer archive route: DELETE for accounts, PATCH status=archived for items and top-ups (the
// document gives items no archive route).
import { failure, isDefinitelyNotFound } from './errors.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import { answerOf, EVENT_ROUTES, seen, sentWrite, TAKEN } from './offer-events.ts';
import type { ArchiveAction } from './plan.ts';

/** Records an archive the marketplace confirmed, sent by `route`. */
export async function archived(ctx: ExecutionContext, a: ArchiveAction, route: string): Promise<void> {
  ctx.event(sentWrite(a.kind, a.externalId, 'archived', route, [], TAKEN, a.reason));
  await ctx.store.upsertOffer(a.kind, a.externalId, { remoteStatus: 'archived' });
  ctx.report({ kind: a.kind, externalId: a.externalId, outcome: 'archived', message: a.reason });
}

/** An offer a definite 404 says is not there any more: forgotten and reported skipped, not failed. */
export async function alreadyGone(ctx: ExecutionContext, a: ArchiveAction): Promise<void> {
  await ctx.store.deleteOffer(a.kind, a.externalId);
  const message = 'already gone from the marketplace';
  ctx.event(seen(a.kind, a.externalId, 'gone', `${message} when archived: forgotten`));
  ctx.report({ kind: a.kind, externalId: a.externalId, outcome: 'skipped', message });
}

export async function archiveOne(ctx: ExecutionContext, a: ArchiveAction): Promise<void> {
  const route = EVENT_ROUTES.archive(a.kind);
  try {
    await ctx.journaled('archive', a.kind, [a.externalId], async () => {
      const opts = { priority: PRIORITY.archive };
      if (a.kind === 'account') return ctx.client.accounts.archive({ id: a.remoteId }, opts);
      const resource = a.kind === 'item' ? ctx.client.items : ctx.client.topUps;
      return resource.update({ id: a.remoteId }, { status: 'archived' }, opts);
    });
    await archived(ctx, a, route);
  } catch (err) {
    if (isDefinitelyNotFound(err)) return alreadyGone(ctx, a);
    const answer = answerOf(err);
    if (answer) ctx.event(sentWrite(a.kind, a.externalId, 'archived', route, [], answer, a.reason));
    ctx.report({ kind: a.kind, externalId: a.externalId, ...failure(err, 'archive failed: ') });
  }
}
