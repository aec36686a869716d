// The planner: a pure function (desired, state, remote) -> Plan, in stages: match the three pictures per
// offer (match.ts), decide per offer (decide-desired.ts, decide-removed.ts), route writes into bulk batches
// (batches.ts), then check the mass-archive guard (guards.ts). Every rule of what offersync may do lives in
// these files; the executor only carries the plan out. See docs/architecture.md.
import type { DesiredOffer, ImageRef, OfferKind } from '../../catalogue/desired-offer.ts';
import type { HeldAccount } from '../../catalogue/same-account.ts';
import { OFFER_KINDS } from '../../catalogue/desired-offer.ts';
import { asOfferView, isManagedListed, type OfferView } from '../../state/offer-view.ts';
import type { OfferRecord } from '../../state/records.ts';
import type { AccountMark } from '../../state/account-marks.ts';
import { OneLiveOffer } from './one-live-offer.ts';
import { batchUpdates, routeArchives } from './batches.ts';
import { byMoney } from './money-rank.ts';
import { holdCheapNewOffers } from './cheap-new-offer.ts';
import { decideDesired } from './decide-desired.ts';
import { decideRemoved } from './decide-removed.ts';
import { archivesByUpdate, type CatalogueLoss, type GuardPart, massArchiveVerdict } from './guards.ts';
import { isLocked } from './locked-status.ts';
import { type MatchedOffer, match } from './match.ts';
import { type OfferKey, offerKey } from '../../catalogue/identity.ts';
import type { ArchiveAction, Plan, PlanAction, UploadAction } from './plan-actions.ts';
import type { PlannerOptions } from './planner-options.ts';
import { type PriceChange, priceVerdict } from './price-guard.ts';
import type { RemoteSnapshot } from './remote-snapshot.ts';
import { soldCountNote } from '../../sales/sold-count.ts';
import type { SoldCountNote } from '../../sales/unit-sale.ts';
import { describeTarget, isTargeted, type Target, targetTest } from './target.ts';

export interface CatalogueSide {
  readonly offers: readonly DesiredOffer[];
  readonly complete: boolean;
  readonly quarantinedFiles: readonly string[];
  readonly invalidOffers: readonly { readonly kind: OfferKind; readonly externalId: string; readonly file: string }[];
  /** Account offers held back as selling one account with another: their fingerprints still count. */
  readonly heldAccounts?: readonly HeldAccount[];
}

export interface PlannerInput {
  readonly catalogue: CatalogueSide;
  /** The state's records, or the store's view of them (read a page at a time). */
  readonly state: readonly OfferRecord[] | OfferView;
  readonly remote: RemoteSnapshot;
  /** sha256 -> marketplace image id, for images already uploaded. */
  readonly uploadedImages: ReadonlyMap<string, number>;
  /** Keys of creates a crash interrupted and nobody settled yet (plan does not settle the journal). */
  readonly interruptedCreates?: ReadonlySet<string>;
  readonly options: PlannerOptions;
  /** A targeted run: offers outside it get no action at all, not even an archive. */
  readonly target?: Target;
  /** The account offers of the other sellers of this seller's group (plan/one-live-offer.ts). */
  readonly group?: readonly AccountMark[];
  /** The remote listing is let go as it is matched (match.ts, spendListing): a run's own snapshot. */
  readonly spendListing?: boolean;
}

/**
 * Pure but for the state's pages: the view is read a page at a time as the match stage asks (offer-view.ts), and
 * every page is decided before the next is read. Decisions themselves await nothing.
 */
export async function plan(input: PlannerInput): Promise<Plan> {
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
  const soldCounts: SoldCountNote[] = [];
  const priceChanges: PriceChange[] = [];
  let priced = 0;
  const archivedFrom = new Map<string, number>();
  const managedIn = new GuardCounts();
  const archivedIn = new GuardCounts();
  const oneLive = new OneLiveOffer(catalogue.heldAccounts ?? [], input.group ?? []);
  for await (const page of match({
    offers: catalogue.offers,
    state,
    remote,
    spendListing: input.spendListing === true,
  }))
    for (const m of page) {
      if (m.state && isManagedListed(m.state)) managedIn.add(m.kind, m.state.sourceFile);
      if (inTarget && !inTarget(m.kind, m.externalId, m.desired?.source.file ?? m.state?.sourceFile)) {
        outside++;
        oneLive.see(m, { actionable: false, archived: false, from: 0, to: 0 });
        continue;
      }
      const from = actions.length;
      const archiving = archives.length;
      // Sales are read whatever is decided below: a sale is news even for an offer the run leaves alone.
      if (m.live && m.presence === 'listed') {
        const note = soldCountNote({ desired: m.desired, state: m.state, live: m.live });
        if (note) soldCounts.push(note);
      }
      if (m.desired && quarantinedFiles.has(m.desired.source.file)) {
        // A quarantined file's offers are neither created, updated nor archived: what the file meant is unknown.
        actions.push({
          type: 'noop',
          kind: m.kind,
          externalId: m.externalId,
          reason: 'quarantined',
          detail: `${m.desired.source.file} is quarantined: nothing from it is sent until it is fixed`,
        });
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
        const decided = decideDesired(m, d, { options, snapshot: remote.kinds[m.kind], imageId, interrupted });
        if (decided.some(archivesByUpdate)) archivedIn.add(m.kind, m.state?.sourceFile);
        const before = priceBefore(m);
        if (before !== undefined) {
          priced++;
          for (const a of decided)
            if (a.type === 'update')
              for (const c of a.changes)
                if (c.field === 'price' && typeof c.to === 'number')
                  priceChanges.push({ kind: m.kind, externalId: m.externalId, from: before, to: c.to });
        }
        actions.push(...decided);
        oneLive.see(m, { actionable: true, archived: false, from, to: actions.length });
        continue;
      }
      const decision = decideRemoved(m, {
        options,
        catalogueComplete: catalogue.complete,
        remoteComplete: remote.kinds[m.kind].complete,
        quarantinedFiles,
        invalid: invalid.has(m.key),
      });
      if (decision?.type === 'archive') {
        archives.push(decision);
        archivedIn.add(m.kind, m.state?.sourceFile);
        const file = m.state?.sourceFile;
        if (file) archivedFrom.set(file, (archivedFrom.get(file) ?? 0) + 1);
      } else if (decision) actions.push(decision);
      oneLive.see(m, { actionable: true, archived: archives.length > archiving, from, to: actions.length });
    }
  const sameAccount = oneLive.settle(actions);
  archives.push(...sameAccount.archives);

  const managed = await state.countManaged();
  const archiving = [...archives, ...sameAccount.actions.filter(archivesByUpdate)];
  const loss = catalogueLoss(catalogue, archivedFrom);
  const verdict = massArchiveVerdict(
    archiving.length,
    managed,
    options.guard,
    options.allowMassArchive,
    loss,
    guardParts(managedIn, archivedIn, catalogue),
  );
  const priceGuard = priceVerdict(priceChanges, priced, options.priceGuard, options.allowPriceChange);
  // A stopped run names what it held back (plan/guard-list.ts): sorted, so the first few are stable.
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
    // In the order of money at risk (money-rank.ts): archives, stock decreases, prices, uploads and creates, the rest.
    actions: byMoney([
      ...uploadActions,
      ...batchUpdates(
        options.allowPriceChange ? sameAccount.actions : holdCheapNewOffers(sameAccount.actions, catalogue.offers),
        options,
      ),
      ...routeArchives(archives, options),
    ]),
    guard,
    priceGuard,
    soldCounts,
    ...withUrgent(notices(catalogue, remote), sameAccount.urgent),
    ...(target ? { target: { ...target, description: describeTarget(target), outside } } : {}),
  };
}

/**
 * The price an offer has now as far as offersync can tell: the one it last sent, else the one the marketplace
 * shows. undefined for an offer not on the marketplace, or one the marketplace owns (sold, refunded, processing).
 */
function priceBefore(m: MatchedOffer): number | undefined {
  if (!m.live || isLocked(m.live.status)) return undefined;
  const sent = m.state?.remoteId === m.live.id ? m.state.lastApplied?.price : undefined;
  if (typeof sent === 'number') return sent;
  const shown = m.live.fields.price;
  return typeof shown === 'number' ? shown : undefined;
}

/** Managed offers, or offers a run archives, counted per kind and per catalogue file. */
class GuardCounts {
  readonly kinds = new Map<OfferKind, number>();
  readonly files = new Map<string, number>();
  add(kind: OfferKind, file: string | null | undefined): void {
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    if (file) this.files.set(file, (this.files.get(file) ?? 0) + 1);
  }
}

/**
 * What the guard checks besides the whole shop: each kind, and each file the catalogue still has (a deleted file
 * is the seller's own word that its offers go; the kind and shop rules still bound it).
 */
function guardParts(managed: GuardCounts, archived: GuardCounts, catalogue: CatalogueSide): GuardPart[] {
  const parts: GuardPart[] = [];
  for (const [kind, archives] of archived.kinds)
    parts.push({ scope: 'kind', kind, managed: managed.kinds.get(kind) ?? archives, archives });
  if (archived.files.size === 0) return parts;
  const present = new Set<string>(catalogue.offers.map((o) => o.source.file));
  for (const f of catalogue.quarantinedFiles) present.add(f);
  for (const o of catalogue.invalidOffers) present.add(o.file);
  for (const [file, archives] of archived.files)
    if (present.has(file)) parts.push({ scope: 'file', file, managed: managed.files.get(file) ?? archives, archives });
  return parts;
}

/**
 * Files of the state whose every offer the run would archive and that hold no offer in the catalogue now. An empty
 * catalogue is said first, whatever the archives' files: prune: all archives offers the state never held.
 */
function catalogueLoss(catalogue: CatalogueSide, archivedFrom: ReadonlyMap<string, number>): CatalogueLoss {
  if (catalogue.offers.length === 0) return { empty: true, files: [] };
  if (archivedFrom.size === 0) return { empty: false, files: [] };
  const present = new Set(catalogue.offers.map((o) => o.source.file));
  const files = [...archivedFrom]
    .filter(([file]) => !present.has(file))
    .map(([file, offers]) => ({ file, offers }))
    .sort((a, b) => b.offers - a.offers || a.file.localeCompare(b.file));
  return { empty: false, files };
}

/** Urgent notices go first: an account sold twice costs more than any other warning. */
function withUrgent(
  n: Pick<Plan, 'archiveSuppressed' | 'warnings'>,
  urgent: readonly string[],
): Pick<Plan, 'archiveSuppressed' | 'warnings'> {
  return urgent.length === 0 ? n : { ...n, warnings: [...urgent, ...n.warnings] };
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
