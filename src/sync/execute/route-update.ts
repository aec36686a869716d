// Update routes: one PATCH, account PATCH probed with its fallback, and archive-and-recreate. The planner
// chose the route and the fallback (plan.ts, UpdateRoute); this carries them out.
import type { DesiredOffer } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import { CAPABILITIES, NOT_SERVED } from '../../capabilities/names.ts';
import { isCapabilityRefusal } from './capability-refusal.ts';
import { imageIdsOf } from '../fields/desired-fields.ts';
import { failure, StoppedAfterArchiveError, statusOf, stoppedBeforeSent } from '../run-stopped.ts';
import { errorMessage } from '../../log/scrubber.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import { moneyPriority } from '../plan/money-rank.ts';
import { changesItemGame, sendItemGameUpdate } from './item-game-update.ts';
import { isLocked } from '../plan/locked-status.ts';
import {
  answerOf,
  EVENT_ROUTES,
  editedOnWebsite,
  sentWrite,
  TAKEN,
  UPDATE_REASONS,
  updatedChanges,
} from './offer-events.ts';
import type { OfferFields } from '../fields/offer-fields.ts';
import type { SingleUpdateRoute, UpdateAction } from '../plan/plan-actions.ts';
import type { MarketplaceAnswer, OfferEventChange } from '../../state/records.ts';
import { accountWireBody } from '../fields/account-wire-body.ts';
import {
  changesToBody,
  createWireBody,
  credentialValues,
  type RequestBody,
  withCredentials,
} from '../fields/request-body.ts';
import { resourceOf } from '../fields/resource-of.ts';

/** The create after an archive was refused: the server keeps archived external_ids. */
class RecreateRefusedError extends Error {
  override readonly name = 'RecreateRefusedError';
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
  }
}

/** Why an offer cannot be sent now: an image it needs failed to upload. */
export function imageProblem(ctx: ExecutionContext, d: DesiredOffer): string | null {
  if (d.kind !== 'account') return null;
  const bad = d.images.filter((i) => ctx.failedUploads.has(i.sha256));
  return bad.length > 0 ? `not sent: image ${bad.map((i) => i.path).join(', ')} failed to upload` : null;
}

/** The planned fields with image_ids added once the run's uploads are done. */
export async function resolvedFields(
  ctx: ExecutionContext,
  d: DesiredOffer,
  fields: OfferFields,
  pending: boolean,
): Promise<OfferFields> {
  if (!pending || d.kind !== 'account') return fields;
  const known = new Map<string, number | undefined>();
  for (const i of d.images) known.set(i.sha256, await ctx.imageId(i.sha256));
  const ids = imageIdsOf(d, (sha) => known.get(sha));
  return ids ? { ...fields, image_ids: ids } : fields;
}

/** One update by a single-offer route, reported; a 409 on a locked offer is reported sold. */
export async function runUpdate(ctx: ExecutionContext, a: UpdateAction, route: SingleUpdateRoute): Promise<void> {
  const d = a.desired;
  const file = d.source.file;
  const problem = imageProblem(ctx, d);
  if (problem) return ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'failed', file, message: problem });
  const fields = await resolvedFields(ctx, d, a.fields, a.imagesPending);
  const sent: OfferFields = a.sendImages
    ? { ...changesToBody(a.changes), image_ids: fields.image_ids }
    : changesToBody(a.changes);
  const body = withCredentials(sent, d, a.sendCredentials);
  const told = updatedChanges(a.changes, a.sendCredentials, a.sendImages ? fields.image_ids : undefined);
  const via = route.via === 'recreate' ? EVENT_ROUTES.recreate : EVENT_ROUTES.update(d.kind);
  const priority = moneyPriority(a);
  try {
    const { updated, sent: taken } = changesItemGame(d.kind, sent)
      ? await sendItemGameUpdate(ctx, d, sent, (b) => sendUpdate(ctx, d, a.remoteId, b, fields, route, priority))
      : { updated: await sendUpdate(ctx, d, a.remoteId, body, fields, route, priority), sent };
    if (updated === 'blocked') return;
    tellUpdate(ctx, a, via, told, TAKEN);
    await ctx.applied(d, updated, taken, fields);
    const outcome = a.reason === 'adopted' ? 'adopted' : 'updated';
    ctx.report({ kind: d.kind, externalId: d.externalId, outcome, file, fields: Object.keys(taken) });
  } catch (err) {
    const answer = answerOf(err, credentialValues(d));
    if (answer) tellUpdate(ctx, a, via, told, answer);
    if (statusOf(err) === 409) {
      const live = await resourceOf(ctx.client, d.kind)
        .get({ id: a.remoteId })
        .catch(() => null);
      if (live && isLocked(live.status)) {
        await ctx.markLocked(d.kind, d.externalId, live);
        const message = `the marketplace marks it ${live.status}`;
        return ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'sold', file, message });
      }
    }
    ctx.report({
      kind: d.kind,
      externalId: d.externalId,
      file,
      ...failure(err, '', ctx.refused(d, err), credentialValues(d)),
    });
  }
}

/** An update in the offer's story: the edit on the website it patches back, if any, then what was sent. */
export function tellUpdate(
  ctx: ExecutionContext,
  a: UpdateAction,
  route: string,
  told: readonly OfferEventChange[],
  answer: MarketplaceAnswer,
): void {
  const edited = editedOnWebsite(a.kind, a.externalId, a.changes);
  if (edited) ctx.event(edited);
  ctx.event(sentWrite(a.kind, a.externalId, 'updated', route, told, answer, UPDATE_REASONS[a.reason]));
}

/**
 * Sends one offer's update by its route. Returns the offer as the server echoes it, or 'blocked' when the
 * route is not served and the fallback is to report (reported here). `fields` is the full body a recreate sends.
 */
export function sendUpdate(
  ctx: ExecutionContext,
  d: DesiredOffer,
  remoteId: number,
  body: RequestBody,
  fields: OfferFields,
  route: SingleUpdateRoute,
  /** The money rank's queue priority (plan/money-rank.ts); a plain update's by default. */
  priority: number = PRIORITY.update,
): Promise<RemoteOffer | 'blocked'> {
  const blocked = (message: string): 'blocked' => {
    const names = Object.keys(body).filter((f) => f !== 'credentials');
    const file = d.source.file;
    ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'blocked', file, fields: names, message });
    return 'blocked';
  };
  const patch = () =>
    ctx.journaled('update', d.kind, [d.externalId], () =>
      resourceOf(ctx.client, d.kind).update({ id: remoteId }, accountWireBody(body, d), { priority }),
    );
  const recreate = () =>
    ctx.capabilities.call<RemoteOffer | 'blocked'>({
      capability: CAPABILITIES.accountRecreate,
      attempt: () => archiveAndCreate(ctx, d, remoteId, fields),
      refusal: async (err) => (err instanceof RecreateRefusedError ? err.detail : null),
      fallback: async () => blocked(NOT_SERVED.accountRecreate),
      proberFallsBack: false,
    });
  switch (route.via) {
    case 'recreate':
      return recreate();
    case 'patch':
      if (route.ifRefused === 'fail') return patch();
      return ctx.capabilities.call<RemoteOffer | 'blocked'>({
        capability: CAPABILITIES.accountUpdate,
        attempt: patch,
        refusal: (err) => accountPatchRefusal(ctx, remoteId, err),
        fallback: route.ifRefused === 'recreate' ? recreate : async () => blocked(NOT_SERVED.accountUpdate),
        proberFallsBack: true,
      });
    default:
      return route satisfies never;
  }
}

/** Whether a failed account PATCH says the route is not served, as opposed to this offer failing. */
async function accountPatchRefusal(ctx: ExecutionContext, remoteId: number, err: unknown): Promise<string | null> {
  const status = statusOf(err);
  if (!isCapabilityRefusal(err) || status === 422) return null;
  // A 404 may mean "no such offer" as well as "no such route": the offer's GET tells them apart.
  const exists = await ctx.client.accounts.get({ id: remoteId }).then(
    () => true,
    () => false,
  );
  if (!exists && status !== 405) return null;
  ctx.logger.warn({ status }, 'the marketplace does not serve PATCH /accounts/{id}: account updates fall back');
  return `${status}: ${errorMessage(err)}`;
}

/** Archive-then-create loses the listing if the server refuses the create; the gate probes it on one offer. */
async function archiveAndCreate(
  ctx: ExecutionContext,
  d: DesiredOffer,
  remoteId: number,
  fields: OfferFields,
): Promise<RemoteOffer> {
  await ctx.journaled('recreate', d.kind, [d.externalId], () =>
    ctx.client.accounts.archive({ id: remoteId }, { priority: PRIORITY.update }),
  );
  try {
    return await ctx.journaled('create', d.kind, [d.externalId], () =>
      resourceOf(ctx.client, d.kind).create(createWireBody(d, fields), { priority: PRIORITY.create }),
    );
  } catch (err) {
    if (stoppedBeforeSent(err)) throw new StoppedAfterArchiveError(remoteId);
    if (statusOf(err) !== 409) throw err;
    throw new RecreateRefusedError(
      `archived #${remoteId} to re-create it, but the marketplace refused the create (409: it keeps archived ` +
        'external_ids). The offer stays archived until it is given a new external_id; other account updates ' +
        'are now reported as blocked.',
      `409 after archive: ${errorMessage(err)}`,
    );
  }
}
