// The planner: a pure function (desired, state, remote) -> Plan, in stages: match the three pictures per
// offer (match.ts), decide per offer (decide-desired.ts, decide-removed.ts), route writes into bulk batches
// (batches.ts), then check the mass-archive guard (guards.ts). Every rule of what offersync may do lives in
// these files; the executor only carries the plan out. See docs/architecture.md.
import type { DesiredOffer, ImageRef, OfferKind } from '../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../catalogue/desired-offer.ts';
import { asOfferView, type OfferView } from '../state/offer-view.ts';
import type { OfferRecord } from '../state/records.ts';
import { batchTopUpUpdates, routeArchives } from './batches.ts';
import { decideDesired } from './decide-desired.ts';
import { decideRemoved } from './decide-removed.ts';
import { archivesByUpdate, massArchiveVerdict } from './guards.ts';
import { match } from './match.ts';
import { type OfferKey, offerKey } from './offer-key.ts';
import type { ArchiveAction, Plan, PlanAction, UploadAction } from './plan.ts';
import type { PlannerOptions } from './planner-options.ts';
import type { RemoteSnapshot } from './remote-snapshot.ts';
import { describeTarget, isTargeted, type Target, targetTest } from './target.ts';

export type { PlannerOptions } from './planner-options.ts';

export interface CatalogueSide {
  readonly offers: readonly DesiredOffer[];
  readonly complete: boolean;
  readonly quarantinedFiles: readonly string[];
  readonly invalidOffers: readonly { readonly kind: OfferKind; readonly externalId: string; readonly file: string }[];
}

export interface PlannerInput {
  readonly catalogue: CatalogueSide;
  /** The state's records, or the store's view of them (looked up one at a time). */
  readonly state: readonly OfferRecord[] | OfferView;
  readonly remote: RemoteSnapshot;
  /** sha256 -> marketplace image id, for images already uploaded. */
  readonly uploadedImages: ReadonlyMap<string, number>;
  /** Keys of creates a crash interrupted and nobody settled yet (plan does not settle the journal). */
  readonly interruptedCreates?: ReadonlySet<string>;
  readonly options: PlannerOptions;
  /** A targeted run: offers outside it get no action at all, not even an archive. */
  readonly target?: Target;
}

export function plan(input: PlannerInput): Plan {
  const { catalogue, remote, options, uploadedImages } = input;
  const state = asOfferView(input.state);
  const imageId = (sha256: string) => uploadedImages.get(sha256);
  const quarantinedFiles = new Set(catalogue.quarantinedFiles);
  const invalid = new Set<OfferKey>(catalogue.invalidOffers.map((o) => offerKey(o.kind, o.externalId)));

  const actions: PlanAction[] = [];
  const archives: Omit<ArchiveAction, 'route'>[] = [];
  const uploads = new Map<string, { image: ImageRef; neededBy: string[] }>();
  const target = isTargeted(input.target) ? input.target : undefined;
  const inTarget = target ? targetTest(target) : null;
  let outside = 0;
  for (const m of match({ offers: catalogue.offers, state, remote })) {
    if (inTarget && !inTarget(m.kind, m.externalId, m.desired?.source.file ?? m.state?.sourceFile)) {
      outside++;
      continue;
    }
    if (m.desired) {
      const d = m.desired;
      if (d.kind === 'account' && m.presence !== 'unconfirmed') {
        for (const img of d.images) {
          if (uploadedImages.has(img.sha256)) continue;
          const u = uploads.get(img.sha256) ?? { image: img, neededBy: [] };
          u.neededBy.push(d.externalId);
          uploads.set(img.sha256, u);
        }
      }
      const interrupted = input.interruptedCreates?.has(m.key) ?? false;
      actions.push(...decideDesired(m, d, { options, snapshot: remote.kinds[m.kind], imageId, interrupted }));
      continue;
    }
    const decision = decideRemoved(m, {
      options,
      catalogueComplete: catalogue.complete,
      remoteComplete: remote.kinds[m.kind].complete,
      quarantinedFiles,
      invalid: invalid.has(m.key),
    });
    if (decision?.type === 'archive') archives.push(decision);
    else if (decision) actions.push(decision);
  }

  const managed = state.countManaged();
  const archiving = [...archives, ...actions.filter(archivesByUpdate)];
  const verdict = massArchiveVerdict(archiving.length, managed, options.guard, options.allowMassArchive);
  // A stopped run names what it held back (guard-list.ts): sorted, so the first few are stable.
  const guard = verdict.tripped
    ? {
        ...verdict,
        held: archiving
          .map((a) => ({ kind: a.kind, externalId: a.externalId }))
          .sort((a, b) => a.kind.localeCompare(b.kind) || a.externalId.localeCompare(b.externalId)),
      }
    : verdict;
  const uploadActions: UploadAction[] = [...uploads.values()]
    .sort((a, b) => a.image.path.localeCompare(b.image.path))
    .map((u) => ({ type: 'upload', image: u.image, neededBy: u.neededBy }));
  archives.sort((a, b) => a.kind.localeCompare(b.kind) || a.externalId.localeCompare(b.externalId));
  return {
    actions: [...uploadActions, ...batchTopUpUpdates(actions, options), ...routeArchives(archives, options)],
    guard,
    ...notices(catalogue, remote),
    ...(target ? { target: { ...target, description: describeTarget(target), outside } } : {}),
  };
}

/** Why nothing is archived this run, and what the seller must see of the remote lists. */
function notices(catalogue: CatalogueSide, remote: RemoteSnapshot): Pick<Plan, 'archiveSuppressed' | 'warnings'> {
  const archiveSuppressed: string[] = [];
  const warnings: string[] = [];
  if (!catalogue.complete)
    archiveSuppressed.push('the catalogue could not be read completely: nothing is archived this run');
  for (const kind of OFFER_KINDS) {
    const snap = remote.kinds[kind];
    if (!snap.complete)
      archiveSuppressed.push(
        `the ${kind} list could not be read completely (${snap.error ?? 'a page failed'}): ` +
          `no ${kind} is archived this run`,
      );
    for (const dup of snap.duplicates)
      warnings.push(
        `the marketplace lists ${kind} '${dup}' more than once: offersync manages the one it maps, ` +
          'fix the other on the website',
      );
  }
  return { archiveSuppressed, warnings };
}
