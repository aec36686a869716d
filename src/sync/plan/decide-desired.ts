// Planning, stage 2 for an offer the catalogue wants: create, adopt, update (with its route), or leave it,
// saying why. Pure: the same matched offer and options give the same actions.
import type { DesiredOffer } from '../../catalogue/desired-offer.ts';
import { type EffectiveFields, effectiveFields, type ImageIdOf } from '../fields/desired-fields.ts';
import { diffFields, liveFieldsOf } from '../fields/diff.ts';
import { isLocked } from './locked-status.ts';
import type { MatchedOffer } from './match.ts';
import type { PlanAction, SingleUpdateRoute, UpdateAction } from './plan-actions.ts';
import { NOT_SERVED } from '../../capabilities/names.ts';
import type { PlannerOptions } from './planner-options.ts';
import { backoffKey, backoffVerdict, describeBackoff } from './offer-backoff.ts';
import { withoutSales } from './sale-or-drift.ts';
import type { KindSnapshot } from './remote-snapshot.ts';
import { splitUpdatable } from '../fields/updatable-fields.ts';

export interface DesiredContext {
  readonly options: PlannerOptions;
  readonly snapshot: KindSnapshot;
  readonly imageId: ImageIdOf;
  /** A create of this offer was interrupted by a crash and nobody settled it yet (plan does not settle). */
  readonly interrupted: boolean;
}

const UNCONFIRMED = 'missing from the list and the check by id failed: retried next run';

// One object per route, shared by every action that takes it (a plan of 100,000 creates carries one each).
const ROUTES = {
  patchOrFail: { via: 'patch', ifRefused: 'fail' },
  patchOrReport: { via: 'patch', ifRefused: 'report' },
  patchOrRecreate: { via: 'patch', ifRefused: 'recreate' },
  recreate: { via: 'recreate', ifRefused: 'report' },
} as const satisfies Record<string, SingleUpdateRoute>;

/** The route of an update of this kind by what is known of the routes the document does not promise. */
export function updateRoute(kind: DesiredOffer['kind'], options: PlannerOptions): SingleUpdateRoute {
  if (kind !== 'account') return ROUTES.patchOrFail;
  const { capabilities: caps, updateFallback } = options;
  if (caps.accountUpdate !== 'unusable')
    return updateFallback === 'report' ? ROUTES.patchOrReport : ROUTES.patchOrRecreate;
  if (updateFallback === 'report') return ROUTES.patchOrReport;
  return ROUTES.recreate;
}

/** Why an update cannot be sent at all by its route, or null. */
function unsendable(route: SingleUpdateRoute, options: PlannerOptions): string | null {
  const caps = options.capabilities;
  if (route.via === 'patch' && route.ifRefused !== 'fail' && caps.accountUpdate === 'unusable')
    return NOT_SERVED.accountUpdate;
  if (route.via === 'recreate' && caps.accountRecreate === 'unusable') return NOT_SERVED.accountRecreate;
  return null;
}

export function decideDesired(m: MatchedOffer, d: DesiredOffer, ctx: DesiredContext): PlanAction[] {
  const { options, snapshot } = ctx;
  const { kind, externalId } = m;
  if (m.presence === 'unconfirmed')
    return [{ type: 'noop', kind, externalId, reason: 'unconfirmed', detail: UNCONFIRMED }];
  // Refused before: held back until its entry changes or its backoff elapses (a per-item limiter).
  const held = backoffVerdict(options.backoffs?.get(backoffKey(kind, externalId)), d.hash, options.now ?? 0);
  if (!held.send) {
    const reason = held.parked ? 'parked' : 'backoff';
    const remoteId = m.live ? { remoteId: m.live.id } : {};
    return [{ type: 'noop', kind, externalId, reason, detail: describeBackoff(held.backoff), ...remoteId }];
  }
  const effective = effectiveFields(d, options.defaultStatus, ctx.imageId);
  const live = m.live;
  if (!live) {
    const gone = m.presence === 'gone';
    const verifyFirst = ctx.interrupted || !snapshot.full || !snapshot.complete || (m.state?.remoteId != null && !gone);
    const reason = ctx.interrupted
      ? 'an earlier create was interrupted'
      : gone
        ? 'gone from the marketplace, still in the catalogue'
        : 'new in the catalogue';
    const { fields, imagesResolved } = effective;
    const alignRoute = updateRoute(kind, options);
    const imagesPending = !imagesResolved;
    return [{ type: 'create', kind, externalId, desired: d, fields, imagesPending, verifyFirst, alignRoute, reason }];
  }
  if (isLocked(live.status)) {
    const detail = `the marketplace marks it ${live.status}: offersync leaves it alone`;
    const locked: PlanAction = {
      type: 'noop',
      kind,
      externalId,
      reason: live.status,
      remoteId: live.id,
      remote: live,
      detail,
    };
    const reused = reusedSoldId(m, d, live);
    return reused ? [locked, reused] : [locked];
  }
  return decideKnown(m, d, live, effective, options);
}

/**
 * A sold account's external_id whose catalogue entry now holds another game account (its login's keyed hash
 * differs from the one sold): new stock that would never be listed, as the marketplace keeps the id sold. Said as
 * blocked, with the fix, beside the sale itself.
 */
function reusedSoldId(m: MatchedOffer, d: DesiredOffer, live: NonNullable<MatchedOffer['live']>): PlanAction | null {
  if (live.status !== 'sold' || d.kind !== 'account' || m.state?.remoteId !== live.id) return null;
  const sold = m.state.credentialsHmac;
  if (!sold || !d.credentialsHmac || sold === d.credentialsHmac) return null;
  return {
    type: 'noop',
    kind: m.kind,
    externalId: m.externalId,
    reason: 'blocked',
    remoteId: live.id,
    detail:
      `${m.externalId} is sold; give this account a new external_id (${d.source.file} now gives it another ` +
      "account's login, which is never listed under a sold offer's id)",
  };
}

/** The offer is live and not locked: adopt it if state does not know it, then patch what differs. */
function decideKnown(
  m: MatchedOffer,
  d: DesiredOffer,
  live: NonNullable<MatchedOffer['live']>,
  effective: EffectiveFields,
  options: PlannerOptions,
): PlanAction[] {
  const { kind, externalId } = m;
  const rec = m.state;
  const actions: PlanAction[] = [];
  const known = rec !== undefined && rec.remoteId === live.id;
  const { fields, imagesResolved } = effective;
  if (!known) {
    const reason = 'found on the marketplace under its external_id';
    actions.push({ type: 'adopt', kind, externalId, remote: live, desired: d, fields, reason });
  }
  const lastApplied = known ? rec.lastApplied : null;
  const lossy = new Set(known ? rec.lossyFields : []);
  let changes = diffFields({ desired: fields, lastApplied, live: liveFieldsOf(live), lossy });
  if (kind !== 'account')
    changes = [...withoutSales(changes, lastApplied, live, known ? (rec.soldCountAtSend ?? null) : null)];
  // An offer state does not know is compared with the credentials the marketplace returns, when it returns them
  // (sealed into the same HMAC where they are decoded): a lost state db then sends no unchanged credentials.
  const sendCredentials =
    d.kind === 'account' &&
    d.credentialsHmac !== undefined &&
    d.credentialsHmac !== (known ? rec.credentialsHmac : (live.credentialsHmac ?? null));
  // While a gallery image is not uploaded, the desired fields hold no image_ids (fields/desired-fields.ts), so the diff
  // has none to send before the uploads: the update sends them once resolved.
  const sendImages = d.kind === 'account' && !imagesResolved;

  let reported = false;
  if (options.drift === 'report') {
    const drift = changes.filter((c) => c.why === 'drift');
    if (drift.length > 0) {
      const detail = 'edited on the marketplace; drift policy is report';
      actions.push({
        type: 'noop',
        kind,
        externalId,
        reason: 'drift-reported',
        remoteId: live.id,
        changes: drift,
        detail,
      });
      changes = changes.filter((c) => c.why !== 'drift');
      reported = true;
    }
  }
  const { sendable, fixed } = splitUpdatable(kind, changes, options.capabilities.itemGameUpdate);
  if (fixed.length > 0) {
    const names = fixed.map((c) => c.field).join(', ');
    const detail = `the API cannot change ${names} of an item: give it a new external_id to list it anew`;
    actions.push({ type: 'noop', kind, externalId, reason: 'blocked', remoteId: live.id, changes: fixed, detail });
    reported = true;
  }
  changes = sendable;
  if (changes.length === 0 && !sendCredentials && !sendImages) {
    if (known && !reported) actions.push({ type: 'noop', kind, externalId, reason: 'unchanged', remoteId: live.id });
    return actions;
  }
  const route = updateRoute(kind, options);
  const detail = unsendable(route, options);
  if (detail) {
    actions.push({ type: 'noop', kind, externalId, reason: 'blocked', remoteId: live.id, changes, detail });
    return actions;
  }
  // Archived on the website: offersync's own archive is recorded as sent, and undoing it is the seller's change.
  const relist = live.status === 'archived' && fields.status !== 'archived' && lastApplied?.status !== 'archived';
  const reason: UpdateAction['reason'] = relist
    ? 'relist'
    : !known
      ? 'adopted'
      : changes.some((c) => c.why === 'changed' || c.why === 'unsent') || sendCredentials || sendImages
        ? 'changed'
        : 'drift';
  actions.push({
    type: 'update',
    kind,
    externalId,
    remoteId: live.id,
    desired: d,
    changes,
    fields,
    imagesPending: !imagesResolved,
    sendCredentials,
    sendImages,
    route,
    reason,
  });
  return actions;
}
