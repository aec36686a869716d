// The create route: look first when the plan says so, journal the create, and after a 409 or an unknown
// outcome look the offer up by external_id before any retry, so an offer is never listed twice
// (docs/architecture.md, Journal). An offer found already there is adopted and patched to match.
import type { DesiredOffer } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { JournalEntry } from '../../state/records.ts';
import { diffFields, liveFieldsOf } from '../fields/diff.ts';
import { failure, isOutcomeUnknown, statusOf } from '../run-stopped.ts';
import {
  answerOf,
  createdChanges,
  EVENT_ROUTES,
  seen,
  sentWrite,
  TAKEN,
  UPDATE_REASONS,
  updatedChanges,
} from './offer-events.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import { isLocked } from '../plan/locked-status.ts';
import { type OfferFields, offerTitle } from '../fields/offer-fields.ts';
import type { CreateAction } from '../plan/plan-actions.ts';
import { changesToBody, createWireBody, credentialValues, withCredentials } from '../fields/request-body.ts';
import { resourceOf } from '../fields/resource-of.ts';
import { imageProblem, resolvedFields, sendUpdate } from './route-update.ts';
import { withoutSales } from '../plan/sale-or-drift.ts';
import { splitUpdatable } from '../fields/updatable-fields.ts';

export async function runCreate(ctx: ExecutionContext, a: CreateAction): Promise<void> {
  const d = a.desired;
  const file = d.source.file;
  const problem = imageProblem(ctx, d);
  if (problem) return ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'failed', file, message: problem });
  const resource = resourceOf(ctx.client, d.kind);
  const fields = await resolvedFields(ctx, d, a.fields, a.imagesPending);
  const body = createWireBody(d, fields);
  const lookUp = () => resource.findByExternalId(d.externalId, { priority: PRIORITY.create });
  const route = EVENT_ROUTES.create(d.kind);
  const told = createdChanges(d.kind, fields, d.kind === 'account' && d.credentials !== undefined);
  try {
    if (a.verifyFirst) {
      const existing = await lookUp();
      if (existing) return await adoptAndAlign(ctx, a, existing, fields);
    }
    // Derived from the first attempt's journal entry and kept for the retries: each is the same request.
    let idempotencyKey: string | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        let journal: JournalEntry | undefined;
        const created = await ctx.journaled(
          'create',
          d.kind,
          [d.externalId],
          (entry) => {
            journal = entry;
            idempotencyKey ??= `offersync-${entry.runId}-${entry.id}`;
            return resource.create(body, { priority: PRIORITY.create, idempotencyKey });
          },
          { doneWithApplied: true },
        );
        ctx.event(sentWrite(d.kind, d.externalId, 'created', route, told, TAKEN, a.reason));
        // The entry settles done in the commit that records the offer.
        await ctx.applied(d, created, fields, fields, journal);
        return ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'created', file });
      } catch (err) {
        const answer = answerOf(err, credentialValues(d));
        if (answer) ctx.event(sentWrite(d.kind, d.externalId, 'created', route, told, answer, a.reason));
        if (statusOf(err) === 409 || isOutcomeUnknown(err)) {
          // Look before creating again: only a definite "not there" allows a retry.
          const existing = await lookUp();
          if (existing) return await adoptAndAlign(ctx, a, existing, fields);
          if (statusOf(err) !== 409 && attempt < ctx.createAttempts) continue;
        }
        throw err;
      }
    }
  } catch (err) {
    ctx.report({
      kind: d.kind,
      externalId: d.externalId,
      file,
      ...failure(err, '', ctx.refused(d, err), credentialValues(d)),
    });
  }
}

/** The offer exists already (an earlier create did land): adopt it and patch what differs. */
async function adoptAndAlign(
  ctx: ExecutionContext,
  a: CreateAction,
  existing: RemoteOffer,
  fields: OfferFields,
): Promise<void> {
  const d: DesiredOffer = a.desired;
  const file = d.source.file;
  if (isLocked(existing.status)) {
    await ctx.markLocked(d.kind, d.externalId, existing);
    const message = `the marketplace marks it ${existing.status}`;
    return ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'sold', file, message });
  }
  await ctx.store.upsertOffer(d.kind, d.externalId, {
    remoteId: existing.id,
    managed: true,
    sourceFile: file,
    remoteStatus: existing.status ?? null,
    title: offerTitle(fields),
  });
  ctx.event(seen(d.kind, d.externalId, 'adopted', 'already listed under its external_id when created: adopted'));
  // The earlier attempt's body is not known for sure: diff as for an adoption (nothing known to be sent).
  const diff = diffFields({ desired: fields, lastApplied: null, live: liveFieldsOf(existing), lossy: new Set() });
  // Units it sold meanwhile explain a lower stock: not put back on sale.
  const changes = d.kind === 'account' ? diff : withoutSales(diff, null, existing, null);
  const sent = changesToBody(splitUpdatable(d.kind, changes).sendable);
  const body = withCredentials(sent, d, true);
  if (Object.keys(body).length === 0) {
    await ctx.applied(d, existing, {}, fields);
    return ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'adopted', file });
  }
  const route = a.alignRoute.via === 'recreate' ? EVENT_ROUTES.recreate : EVENT_ROUTES.update(d.kind);
  const told = updatedChanges(changes, d.kind === 'account' && d.credentials !== undefined, undefined);
  let updated: RemoteOffer | 'blocked';
  try {
    updated = await sendUpdate(ctx, d, existing.id, body, fields, a.alignRoute);
  } catch (err) {
    const answer = answerOf(err, credentialValues(d));
    if (answer) ctx.event(sentWrite(d.kind, d.externalId, 'updated', route, told, answer, UPDATE_REASONS.adopted));
    throw err;
  }
  if (updated === 'blocked') return;
  ctx.event(sentWrite(d.kind, d.externalId, 'updated', route, told, TAKEN, UPDATE_REASONS.adopted));
  await ctx.applied(d, updated, sent, fields);
  ctx.report({ kind: d.kind, externalId: d.externalId, outcome: 'adopted', file });
}
