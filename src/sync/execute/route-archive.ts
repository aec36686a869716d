// The single-offer archive route: DELETE for accounts (documented); for items and top-ups the candidates of
// plan/bulk-candidates.ts (SINGLE_ARCHIVE_CANDIDATES), PATCH status=archived first, DELETE where that is refused, each
// probed and remembered through the capability gate.
import {
  ARCHIVE_ROUTES,
  type ArchiveRouteCandidate,
  type ArchiveRouteId,
  SINGLE_ARCHIVE_CANDIDATES,
} from '../plan/bulk-candidates.ts';
import { isCapabilityRefusal } from './capability-refusal.ts';
import { failure, isDefinitelyNotFound, statusOf } from '../run-stopped.ts';
import { errorMessage } from '../../log/scrubber.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import { answerOf, EVENT_ROUTES, seen, sentWrite, TAKEN } from './offer-events.ts';
import type { ArchiveAction } from '../plan/plan-actions.ts';
import { resourceOf } from '../fields/resource-of.ts';

/** Records an archive the marketplace confirmed, sent by `route`. */
export async function archived(ctx: ExecutionContext, a: ArchiveAction, route: string): Promise<void> {
  ctx.event(sentWrite(a.kind, a.externalId, 'archived', route, [], TAKEN, a.reason));
  // Recorded as sent: an offer brought back to the catalogue later is then a change of the seller's, not an
  // archive on the website to undo.
  const prev = await ctx.store.getOffer(a.kind, a.externalId);
  await ctx.store.upsertOffer(a.kind, a.externalId, {
    remoteStatus: 'archived',
    ...(prev?.lastApplied ? { lastApplied: { ...prev.lastApplied, status: 'archived' } } : {}),
  });
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
  if (a.kind === 'account') return settle(ctx, a, 'DELETE');
  await viaArchiveRoutes(ctx, a, SINGLE_ARCHIVE_CANDIDATES[a.kind], undefined);
}

/** One request of an archive, journaled: DELETE, or PATCH with status archived. */
function send(ctx: ExecutionContext, a: ArchiveAction, method: ArchiveRouteCandidate['method']): Promise<unknown> {
  return ctx.journaled<unknown>('archive', a.kind, [a.externalId], () => {
    const opts = { priority: PRIORITY.archive };
    const resource = resourceOf(ctx.client, a.kind);
    return method === 'DELETE'
      ? resource.archive({ id: a.remoteId }, opts)
      : resource.update({ id: a.remoteId }, { status: 'archived' }, opts);
  });
}

/** The route an offer's story names for an archive by `method`. */
const routeOf = (a: ArchiveAction, method: ArchiveRouteCandidate['method']): string =>
  method === 'DELETE' ? EVENT_ROUTES.delete(a.kind) : EVENT_ROUTES.archive(a.kind);

/** Tells the story of an archive the marketplace refused or left unknown. */
function tellRefused(ctx: ExecutionContext, a: ArchiveAction, method: ArchiveRouteCandidate['method'], err: unknown) {
  const answer = answerOf(err);
  if (answer) ctx.event(sentWrite(a.kind, a.externalId, 'archived', routeOf(a, method), [], answer, a.reason));
}

/** Sends an archive by `method` and records or reports what came of it; `after` runs once it is taken. */
async function settle(
  ctx: ExecutionContext,
  a: ArchiveAction,
  method: ArchiveRouteCandidate['method'],
  suffix = '',
  after: () => Promise<void> = async () => {},
): Promise<void> {
  try {
    await send(ctx, a, method);
    await after();
    await archived(ctx, a, routeOf(a, method));
  } catch (err) {
    if (isDefinitelyNotFound(err)) return alreadyGone(ctx, a);
    tellRefused(ctx, a, method, err);
    ctx.report({ kind: a.kind, externalId: a.externalId, ...failure(err, 'archive failed: ', suffix) });
  }
}

/**
 * An item or top-up archive by the first of `routes` not known refused; a refusal of the route sends it by the
 * next. Once every route is refused, the documented PATCH goes anyway (a refusal may have been one offer's, or the
 * route served since): its answer is the offer's outcome, and a success marks the route served again.
 * `patchRefused`: this offer's own PATCH was just refused with it, so it is not sent twice.
 */
async function viaArchiveRoutes(
  ctx: ExecutionContext,
  a: ArchiveAction,
  routes: readonly ArchiveRouteId[],
  patchRefused: unknown,
): Promise<void> {
  const [first, ...rest] = routes;
  if (first === undefined) return lastResort(ctx, a, patchRefused);
  const c: ArchiveRouteCandidate = ARCHIVE_ROUTES[first];
  let refusedHere: unknown;
  let done: boolean;
  try {
    done = await ctx.capabilities.call<boolean>({
      capability: c.capability,
      attempt: async () => {
        await send(ctx, a, c.method);
        return true;
      },
      refusal: async (err) => {
        const detail = await archiveRefusal(ctx, a, c, err);
        if (detail !== null) {
          refusedHere = err;
          tellRefused(ctx, a, c.method, err);
        }
        return detail;
      },
      fallback: async () => {
        await viaArchiveRoutes(ctx, a, rest, c.method === 'PATCH' ? refusedHere : patchRefused);
        return false;
      },
      proberFallsBack: true,
    });
  } catch (err) {
    if (isDefinitelyNotFound(err)) return alreadyGone(ctx, a);
    tellRefused(ctx, a, c.method, err);
    return ctx.report({ kind: a.kind, externalId: a.externalId, ...failure(err, 'archive failed: ') });
  }
  if (done) await archived(ctx, a, routeOf(a, c.method));
}

async function lastResort(ctx: ExecutionContext, a: ArchiveAction, patchRefused: unknown): Promise<void> {
  const routes = SINGLE_ARCHIVE_CANDIDATES[a.kind as 'item' | 'topup'].map((id) => ARCHIVE_ROUTES[id]);
  const patch = routes.find((c) => c.method === 'PATCH')!;
  const others = routes.filter((c) => c !== patch).map((c) => c.route);
  const suffix = `; ${others.join(', ')} not served either: archive it on the marketplace's website`;
  if (patchRefused !== undefined) {
    const message = failure(patchRefused, 'archive failed: ', suffix);
    return ctx.report({ kind: a.kind, externalId: a.externalId, ...message });
  }
  await settle(ctx, a, 'PATCH', suffix, () => ctx.store.setCapability(patch.capability, true, null));
}

/**
 * Whether a failed archive says its route is not served, as opposed to this offer failing: 405, 501, a 422 to
 * PATCH status=archived (its only field), or a 404 for an offer its GET finds. A 404 for an offer the GET does not
 * find is the offer gone (the GET's 404 is thrown: the caller forgets it); a GET that fails otherwise is the
 * archive's failure.
 */
async function archiveRefusal(
  ctx: ExecutionContext,
  a: ArchiveAction,
  c: ArchiveRouteCandidate,
  err: unknown,
): Promise<string | null> {
  const status = statusOf(err);
  if (!isCapabilityRefusal(err) || (status === 422 && c.method === 'DELETE')) return null;
  // The GET's own failure is thrown: its definite 404 makes the caller forget the offer even when the archive's 404
  // was not the API's (a proxy's page), and any other failure is the archive's.
  if (status === 404) await resourceOf(ctx.client, a.kind).get({ id: a.remoteId }, { priority: PRIORITY.archive });
  ctx.logger.warn({ status, route: c.route, kind: a.kind }, `${c.route} refused: archives of this kind fall back`);
  return `${status}: ${errorMessage(err)}`;
}
