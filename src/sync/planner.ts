// The planner: a pure function (desired, state, remote) -> Plan. Every rule of what offersync may do lives here.
import type { DesiredOffer, ImageRef, OfferKind } from '../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import type { OfferRecord } from '../state/records.ts';
import { diffFields, liveFieldsOf } from './diff.ts';
import { massArchiveVerdict, type GuardOptions } from './guards.ts';
import {
  offerKey,
  type ArchiveAction,
  type FieldChange,
  type NoopAction,
  type Plan,
  type PlanAction,
  type UploadAction,
} from './plan.ts';
import type { RemoteSnapshot } from './remote-snapshot.ts';

/** Remote states the marketplace owns: never updated, archived or re-created (decision 6). */
export const LOCKED_STATUSES = ['sold', 'refunded', 'processing'] as const;
type LockedStatus = (typeof LOCKED_STATUSES)[number];

/** The only fields PATCH /items accepts (spec 2.5). */
export const ITEM_UPDATE_FIELDS: ReadonlySet<string> = new Set(['title', 'price', 'stock', 'status', 'description']);

export interface PlannerOptions {
  /** Status stated on create (and expected after) when the catalogue gives none. */
  readonly defaultStatus: string;
  readonly prune: 'managed' | 'all' | 'none';
  readonly ownedPattern: RegExp | null;
  readonly drift: 'local-wins' | 'report';
  /** Whether PATCH /accounts/{id} is served (learnt by probing; unknown until tried). */
  readonly accountUpdates: 'usable' | 'unusable' | 'unknown';
  readonly updateFallback: 'report' | 'recreate';
  readonly guard: GuardOptions;
  readonly allowMassArchive: boolean;
}

export interface CatalogueSide {
  readonly offers: readonly DesiredOffer[];
  readonly complete: boolean;
  readonly quarantinedFiles: readonly string[];
  readonly invalidOffers: readonly { readonly kind: OfferKind; readonly externalId: string; readonly file: string }[];
}

export interface PlannerInput {
  readonly catalogue: CatalogueSide;
  readonly state: readonly OfferRecord[];
  readonly remote: RemoteSnapshot;
  /** sha256 -> marketplace image id, for images already uploaded. */
  readonly uploadedImages: ReadonlyMap<string, number>;
  /** "kind:external_id" of creates a crash interrupted and nobody settled yet (plan does not settle). */
  readonly interruptedCreates?: ReadonlySet<string>;
  readonly options: PlannerOptions;
}

export function isLocked(status: string | null | undefined): status is LockedStatus {
  return status === 'sold' || status === 'refunded' || status === 'processing';
}

/** The fields as they will be sent: defaults applied, images resolved when they can be. */
export function effectiveFields(
  d: DesiredOffer,
  defaultStatus: string,
  uploadedImages: ReadonlyMap<string, number>,
): { fields: Record<string, unknown>; imagesResolved: boolean } {
  const fields: Record<string, unknown> = { ...d.fields };
  if (fields.status === undefined) fields.status = defaultStatus;
  if (d.kind !== 'account') return { fields, imagesResolved: true };
  delete fields.image_ids;
  const explicit = d.fields.image_ids ?? [];
  if (d.images.length === 0 && explicit.length === 0) return { fields, imagesResolved: true };
  const ids: number[] = [...explicit];
  for (const img of d.images) {
    const id = uploadedImages.get(img.sha256);
    if (id === undefined) return { fields, imagesResolved: false };
    ids.push(id);
  }
  fields.image_ids = ids;
  return { fields, imagesResolved: true };
}

/** What the state remembers, standing in for an offer an incremental list did not return. */
function remembered(rec: OfferRecord): RemoteOffer | undefined {
  if (rec.remoteId === null) return undefined;
  return {
    id: rec.remoteId,
    externalId: rec.externalId,
    ...(rec.remoteStatus !== null ? { status: rec.remoteStatus } : {}),
    fields: {},
  };
}

function isOwned(rec: OfferRecord | undefined, externalId: string, opts: PlannerOptions): boolean {
  if (opts.prune === 'none') return false;
  if (opts.prune === 'all') return true;
  return (rec?.managed ?? false) || (opts.ownedPattern?.test(externalId) ?? false);
}

export function plan(input: PlannerInput): Plan {
  const { catalogue, remote, options, uploadedImages } = input;
  const actions: PlanAction[] = [];
  const warnings: string[] = [];
  const archiveSuppressed: string[] = [];
  const uploads = new Map<string, { image: ImageRef; neededBy: string[] }>();

  const stateByKey = new Map<string, OfferRecord>();
  for (const rec of input.state) stateByKey.set(offerKey(rec.kind, rec.externalId), rec);
  const desiredKeys = new Set<string>();
  for (const d of catalogue.offers) desiredKeys.add(offerKey(d.kind, d.externalId));
  const quarantined = new Set(catalogue.quarantinedFiles);
  const invalid = new Set(catalogue.invalidOffers.map((o) => offerKey(o.kind, o.externalId)));

  if (!catalogue.complete)
    archiveSuppressed.push('the catalogue could not be read completely: nothing is archived this run');
  for (const kind of OFFER_KINDS) {
    const snap = remote.kinds[kind];
    if (!snap.complete)
      archiveSuppressed.push(
        `the ${kind} list could not be read completely (${snap.error ?? 'a page failed'}): no ${kind} is archived this run`,
      );
    for (const dup of snap.duplicates)
      warnings.push(
        `the marketplace lists ${kind} '${dup}' more than once: offersync manages the one it maps, fix the other on the website`,
      );
  }

  // Desired offers: create, adopt, update, or leave.
  for (const d of catalogue.offers) {
    const key = offerKey(d.kind, d.externalId);
    const rec = stateByKey.get(key);
    const snap = remote.kinds[d.kind];
    if (remote.unconfirmed.has(key)) {
      actions.push({
        type: 'noop',
        kind: d.kind,
        externalId: d.externalId,
        reason: 'unconfirmed',
        detail: 'missing from the list and the check by id failed: retried next run',
      });
      continue;
    }
    const gone = remote.gone.has(key);
    let live = snap.offers.get(d.externalId);
    if (!live && !snap.full && rec && !gone) live = remembered(rec);

    const { fields, imagesResolved } = effectiveFields(d, options.defaultStatus, uploadedImages);
    if (d.kind === 'account') {
      for (const img of d.images) {
        if (uploadedImages.has(img.sha256)) continue;
        const u = uploads.get(img.sha256) ?? { image: img, neededBy: [] };
        u.neededBy.push(d.externalId);
        uploads.set(img.sha256, u);
      }
    }

    if (!live) {
      const interrupted = input.interruptedCreates?.has(key) ?? false;
      actions.push({
        type: 'create',
        kind: d.kind,
        externalId: d.externalId,
        desired: d,
        fields,
        verifyFirst: interrupted || !snap.full || !snap.complete || (rec?.remoteId != null && !gone),
        reason: interrupted
          ? 'an earlier create was interrupted'
          : gone
            ? 'gone from the marketplace, still in the catalogue'
            : 'new in the catalogue',
      });
      continue;
    }

    if (isLocked(live.status)) {
      actions.push({
        type: 'noop',
        kind: d.kind,
        externalId: d.externalId,
        reason: live.status,
        remoteId: live.id,
        detail: `the marketplace marks it ${live.status}: offersync leaves it alone`,
      });
      continue;
    }

    const known = rec !== undefined && rec.remoteId === live.id;
    if (!known) {
      actions.push({
        type: 'adopt',
        kind: d.kind,
        externalId: d.externalId,
        remote: live,
        desired: d,
        reason: 'found on the marketplace under its external_id',
      });
    }
    const lastApplied = known ? rec.lastApplied : null;
    const lossy = new Set(known ? rec.lossyFields : []);
    let changes = diffFields({ desired: fields, lastApplied, live: liveFieldsOf(live), lossy });
    const sendCredentials =
      d.kind === 'account' &&
      d.credentialsHmac !== undefined &&
      d.credentialsHmac !== (known ? rec.credentialsHmac : null);
    const sendImages = d.kind === 'account' && !imagesResolved;
    if (sendImages) changes = changes.filter((c) => c.field !== 'image_ids');

    let reported = false;
    if (options.drift === 'report') {
      const drift = changes.filter((c) => c.why === 'drift');
      if (drift.length > 0) {
        actions.push({
          type: 'noop',
          kind: d.kind,
          externalId: d.externalId,
          reason: 'drift-reported',
          remoteId: live.id,
          changes: drift,
          detail: 'edited on the marketplace; drift policy is report',
        });
        changes = changes.filter((c) => c.why !== 'drift');
        reported = true;
      }
    }
    if (d.kind === 'item') {
      const fixed = changes.filter((c) => !ITEM_UPDATE_FIELDS.has(c.field));
      if (fixed.length > 0) {
        actions.push({
          type: 'noop',
          kind: 'item',
          externalId: d.externalId,
          reason: 'blocked',
          remoteId: live.id,
          changes: fixed,
          detail: `the API cannot change ${fixed.map((c) => c.field).join(', ')} of an item: give it a new external_id to list it anew`,
        });
        changes = changes.filter((c) => ITEM_UPDATE_FIELDS.has(c.field));
        reported = true;
      }
    }
    if (changes.length === 0 && !sendCredentials && !sendImages) {
      if (known && !reported)
        actions.push({ type: 'noop', kind: d.kind, externalId: d.externalId, reason: 'unchanged', remoteId: live.id });
      continue;
    }
    if (d.kind === 'account' && options.accountUpdates === 'unusable' && options.updateFallback === 'report') {
      actions.push({
        type: 'noop',
        kind: 'account',
        externalId: d.externalId,
        reason: 'blocked',
        remoteId: live.id,
        changes,
        detail:
          'the marketplace does not serve PATCH /accounts/{id}; set accounts.updateFallback: recreate to archive and create it anew',
      });
      continue;
    }
    const relist = live.status === 'archived' && fields.status !== 'archived';
    const reason = relist
      ? 'relist'
      : !known
        ? 'adopted'
        : changes.some((c) => c.why === 'changed' || c.why === 'unsent') || sendCredentials || sendImages
          ? 'changed'
          : 'drift';
    actions.push({
      type: 'update',
      kind: d.kind,
      externalId: d.externalId,
      remoteId: live.id,
      desired: d,
      changes,
      sendCredentials,
      sendImages,
      reason,
    });
  }

  // Offers no longer in the catalogue: archive what offersync owns, leave the rest.
  const archives: ArchiveAction[] = [];
  const seen = new Set<string>();
  const consider = (
    kind: OfferKind,
    externalId: string,
    live: RemoteOffer | undefined,
    rec: OfferRecord | undefined,
  ): void => {
    const key = offerKey(kind, externalId);
    if (desiredKeys.has(key) || seen.has(key)) return;
    seen.add(key);
    const status = live?.status ?? rec?.remoteStatus ?? undefined;
    const remoteId = live?.id ?? rec?.remoteId ?? undefined;
    const noop = (reason: NoopAction['reason'], detail?: string): void => {
      actions.push({
        type: 'noop',
        kind,
        externalId,
        reason,
        ...(detail ? { detail } : {}),
        ...(remoteId !== undefined ? { remoteId } : {}),
      });
    };
    if (remote.gone.has(key)) return noop('gone', 'no longer on the marketplace: forgotten');
    if (remote.unconfirmed.has(key))
      return noop('unconfirmed', 'missing from the list and the check by id failed: retried next run');
    if (status === 'archived') return;
    if (isLocked(status)) return noop(status, `the marketplace marks it ${status}`);
    if (!isOwned(rec, externalId, options)) return noop('unmanaged');
    if (invalid.has(key))
      return noop('invalid', 'its catalogue entry has errors: fix them; it is not archived meanwhile');
    if (rec?.sourceFile && quarantined.has(rec.sourceFile))
      return noop('quarantined', `${rec.sourceFile} does not parse: its offers are left as they are`);
    if (remoteId === undefined) return;
    if (!catalogue.complete || !remote.kinds[kind].complete)
      return noop('blocked', 'not archived: the catalogue or the remote list was incomplete this run');
    archives.push({ type: 'archive', kind, externalId, remoteId, reason: 'removed from the catalogue' });
  };
  for (const kind of OFFER_KINDS) {
    const snap = remote.kinds[kind];
    for (const [externalId, live] of snap.offers)
      consider(kind, externalId, live, stateByKey.get(offerKey(kind, externalId)));
  }
  for (const rec of input.state) {
    const snap = remote.kinds[rec.kind];
    const key = offerKey(rec.kind, rec.externalId);
    // In a full sweep an offer absent from the list is either confirmed gone or unconfirmed (decision 9).
    if (snap.full && !remote.gone.has(key) && !remote.unconfirmed.has(key)) continue;
    consider(rec.kind, rec.externalId, undefined, rec);
  }

  const managed = input.state.filter((r) => r.managed && r.remoteStatus !== 'archived').length;
  const guard = massArchiveVerdict(archives.length, managed, options.guard, options.allowMassArchive);

  const uploadActions: UploadAction[] = [...uploads.values()]
    .sort((a, b) => a.image.path.localeCompare(b.image.path))
    .map((u) => ({ type: 'upload', image: u.image, neededBy: u.neededBy }));
  archives.sort((a, b) => a.kind.localeCompare(b.kind) || a.externalId.localeCompare(b.externalId));
  return { actions: [...uploadActions, ...actions, ...archives], guard, archiveSuppressed, warnings };
}
