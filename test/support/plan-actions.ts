// The plan actions and plans tests hand to the executor, its routes and the saved-plan file, with one set of
// defaults: what the planner would plan for a new offer, a changed price and a removed one. `over` replaces members.
import type { DesiredOffer } from '../../src/catalogue/desired-offer.ts';
import type {
  AdoptAction,
  ArchiveAction,
  CreateAction,
  NoopAction,
  NoopReason,
  Plan,
  PlanAction,
  UpdateAction,
} from '../../src/sync/plan/plan-actions.ts';

/** A create of a new catalogue offer, its images uploaded, aligned by PATCH. */
export function createAction(d: DesiredOffer, over: Partial<CreateAction> = {}): CreateAction {
  return {
    type: 'create',
    kind: d.kind,
    externalId: d.externalId,
    desired: d,
    fields: d.fields,
    imagesPending: false,
    verifyFirst: false,
    alignRoute: { via: 'patch', ifRefused: 'fail' },
    reason: 'new in the catalogue',
    ...over,
  };
}

/** An update of remote offer `remoteId` to d, its price changed from 1. */
export function updateAction(
  d: DesiredOffer,
  remoteId: number,
  route: UpdateAction['route'] = { via: 'patch', ifRefused: 'fail' },
  over: Partial<UpdateAction> = {},
): UpdateAction {
  return {
    type: 'update',
    kind: d.kind,
    externalId: d.externalId,
    remoteId,
    desired: d,
    changes: [{ field: 'price', from: 1, to: d.fields.price ?? 0, why: 'changed' }],
    fields: d.fields,
    imagesPending: false,
    sendCredentials: false,
    sendImages: false,
    route,
    reason: 'changed',
    ...over,
  };
}

/** An archive of an offer removed from the catalogue. */
export function archiveAction(
  kind: ArchiveAction['kind'],
  externalId: string,
  remoteId: number,
  route: ArchiveAction['route'] = { via: 'single' },
  over: Partial<ArchiveAction> = {},
): ArchiveAction {
  return { type: 'archive', kind, externalId, remoteId, route, reason: 'removed from the catalogue', ...over };
}

/** An adoption of d, found listed as remote offer `remoteId` (listed, no fields read). */
export function adoptAction(d: DesiredOffer, remoteId: number, over: Partial<AdoptAction> = {}): AdoptAction {
  return {
    type: 'adopt',
    kind: d.kind,
    externalId: d.externalId,
    remote: { id: remoteId, externalId: d.externalId, status: 'listed', fields: {} },
    desired: d,
    fields: d.fields,
    reason: 'found',
    ...over,
  };
}

export function noopAction(reason: NoopReason, over: Partial<NoopAction> = {}): NoopAction {
  return { type: 'noop', kind: 'item', externalId: 'i-1', reason, ...over };
}

/** A plan of these actions, neither guard tripped. */
export function planOf(actions: readonly PlanAction[], over: Partial<Plan> = {}): Plan {
  return {
    actions,
    guard: { tripped: false, archives: 0, limit: 100 },
    priceGuard: { tripped: false, priced: 0, suspect: [], limit: 2 },
    soldCounts: [],
    archiveSuppressed: [],
    warnings: [],
    ...over,
  };
}
