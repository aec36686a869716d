// What the planner decides: a list of actions, each with its reason, and for each write its route, its body
// and what to do when the marketplace refuses the route. The executor carries these out and decides nothing.
// A Plan is plain data (no Map, no function, no class), so it can be written to a file and read back; the
// desired offers it holds carry account credentials, so whoever writes one out drops or seals them.
import type { FieldChange } from '../fields/field-change.ts';
import type { DesiredOffer, ImageRef, OfferKind } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { OfferFields } from '../fields/offer-fields.ts';
import type { PriceGuardVerdict } from './price-guard.ts';
import type { Target } from './target.ts';
import type { SoldCountNote } from '../../sales/unit-sale.ts';

/**
 * How an update reaches the marketplace.
 * - patch: one PATCH. `ifRefused` is what follows when the marketplace does not serve the route (only account
 *   PATCH is probed: the document does not list it); 'fail' means the route is not in question.
 * - bulk-update: one element of batch `batch` of POST /{items,top-ups}/bulk-update; the first batch sent probes
 *   the route, a refusal sends every element of the kind by its own PATCH.
 * - recreate: account PATCH is not served: archive, then create anew under the same external_id. A refusal of
 *   the create (the server keeps archived external_ids) reports the rest blocked.
 */
export type UpdateRoute =
  | { readonly via: 'patch'; readonly ifRefused: 'fail' | 'report' | 'recreate' }
  | { readonly via: 'bulk-update'; readonly batch: number; readonly ifRefused: 'patch' }
  | { readonly via: 'recreate'; readonly ifRefused: 'report' };

/** A route that sends one offer. */
export type SingleUpdateRoute = Exclude<UpdateRoute, { readonly via: 'bulk-update' }>;

/**
 * How an archive reaches the marketplace: its own route (DELETE for accounts; for items and top-ups PATCH
 * status=archived, or DELETE where that is refused: execute/route-archive.ts), or one element of a batch of bulk-remove
 * (accounts; items and top-ups once their bulk-update is refused) or bulk-update (items, top-ups), which falls
 * back to the kind's next bulk route, then to the offer's own route.
 */
export type ArchiveRoute =
  | { readonly via: 'single' }
  | { readonly via: 'bulk-remove' | 'bulk-update'; readonly batch: number; readonly ifRefused: 'single' };

export interface CreateAction {
  readonly type: 'create';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly desired: DesiredOffer;
  /** Every field to send but credentials; image_ids too unless `imagesPending`. */
  readonly fields: OfferFields;
  /** A gallery image is uploaded in this run: the executor adds image_ids once the uploads are done. */
  readonly imagesPending: boolean;
  /**
   * The remote list of this kind was incomplete or incremental, so "not in the snapshot" does not prove
   * "not on the marketplace": the executor looks it up by external_id before creating.
   */
  readonly verifyFirst: boolean;
  /** The route of the patch that aligns the offer when the create finds it already listed. */
  readonly alignRoute: SingleUpdateRoute;
  readonly reason: string;
}

export interface UpdateAction {
  readonly type: 'update';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly remoteId: number;
  readonly desired: DesiredOffer;
  readonly changes: readonly FieldChange[];
  /** The desired fields in full, as last applied will record them (image_ids added at send if pending). */
  readonly fields: OfferFields;
  readonly imagesPending: boolean;
  /** Credentials changed (compared by HMAC): the desired credentials are sent. */
  readonly sendCredentials: boolean;
  /** The gallery changed: image_ids are sent, resolved after the run's uploads. */
  readonly sendImages: boolean;
  readonly route: UpdateRoute;
  /** relist: the offer was archived on the marketplace but is still in the catalogue. */
  readonly reason: 'changed' | 'drift' | 'relist' | 'adopted';
}

export interface ArchiveAction {
  readonly type: 'archive';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly remoteId: number;
  readonly route: ArchiveRoute;
  readonly reason: string;
}

/** Found on the marketplace under its external_id but not in state: remember the mapping, never create. */
export interface AdoptAction {
  readonly type: 'adopt';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly remote: RemoteOffer;
  readonly desired: DesiredOffer;
  /** The desired fields as sent, recorded as last applied when nothing differs from the live offer. */
  readonly fields: OfferFields;
  readonly reason: string;
}

export interface UploadAction {
  readonly type: 'upload';
  readonly image: ImageRef;
  /** external_ids of the accounts that wait for it. */
  readonly neededBy: readonly string[];
}

export const NOOP_REASONS = [
  'unchanged',
  'sold',
  'refunded',
  'processing',
  'quarantined',
  'invalid',
  'unmanaged',
  'blocked',
  'drift-reported',
  'unconfirmed',
  'gone',
  'archived',
  /** The marketplace refused it; its backoff has not elapsed (plan/offer-backoff.ts). */
  'backoff',
  /** Refused too often: not sent again until its catalogue entry changes. */
  'parked',
] as const;
export type NoopReason = (typeof NOOP_REASONS)[number];

export interface NoopAction {
  readonly type: 'noop';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly reason: NoopReason;
  readonly detail?: string;
  /** For drift-reported and blocked: the changes that were not made. */
  readonly changes?: readonly FieldChange[];
  readonly remoteId?: number;
  /** For sold, refunded and processing: the offer as the list showed it (the sale's time, title and price). */
  readonly remote?: RemoteOffer;
  /** For unchanged accounts: the login fingerprint the state lacks (sent before it was kept), to remember. */
  readonly loginFingerprint?: string;
  /** A blocked offer that needs the seller at once: a live copy, not made by offersync, of a sold account. */
  readonly urgent?: UrgentKind;
}

/** What a blocked offer that needs the seller at once is: its own webhook event (notify/notification.ts). */
export type UrgentKind = 'sold-account-live';

export type PlanAction = CreateAction | UpdateAction | ArchiveAction | AdoptAction | UploadAction | NoopAction;
export type WriteAction = CreateAction | UpdateAction | ArchiveAction | UploadAction;

/** The mass-archive guard's verdict (plan/guards.ts). */
export interface GuardVerdict {
  readonly tripped: boolean;
  readonly archives: number;
  readonly limit: number;
  /**
   * When tripped, the rule that stopped it: more than half of the managed offers, more than the share, or more
   * than half of one kind's or one catalogue file's managed offers.
   */
  readonly rule?: 'half' | 'share' | 'kind' | 'file';
  readonly message?: string;
  /** When tripped: every offer the run would have archived. */
  readonly held?: readonly { readonly kind: OfferKind; readonly externalId: string }[];
}

export interface Plan {
  readonly actions: readonly PlanAction[];
  readonly guard: GuardVerdict;
  /** The price guard's verdict (plan/price-guard.ts); a tripped one stops the run as the mass-archive guard does. */
  readonly priceGuard: PriceGuardVerdict;
  /** Counts of units sold, as the lists showed them: the sales to report and what the state db remembers. */
  readonly soldCounts: readonly SoldCountNote[];
  /** Why no archive was planned at all, when the catalogue or the remote picture was incomplete. */
  readonly archiveSuppressed: readonly string[];
  /** Problems the seller must see (remote duplicates, conflicts). */
  readonly warnings: readonly string[];
  /** A targeted run: what it covered, and how many offers outside it were left as they are. */
  readonly target?: Target & { readonly description: string; readonly outside: number };
}

/** The line a targeted run's plan and summary print. */
export function targetNote(plan: Plan): string | undefined {
  const t = plan.target;
  if (!t) return undefined;
  return (
    `targeted run (${t.description}): ${t.outside} offer${t.outside === 1 ? '' : 's'} outside the target ` +
    'left as they are; nothing outside it is archived'
  );
}

/** A guard stopped the run: nothing is sent. */
export function stoppedByGuard(plan: Plan): boolean {
  return plan.guard.tripped || plan.priceGuard.tripped;
}

export function isWrite(a: PlanAction): a is WriteAction {
  return a.type === 'create' || a.type === 'update' || a.type === 'archive' || a.type === 'upload';
}

/**
 * Whether the marketplace differs from the catalogue (plan's exit 3). An adoption is not such a difference: it
 * maps an offer that already matches to its catalogue entry in offersync's own state, and sends nothing; a
 * catalogue just written by `pull`, planned with a fresh state db, is all adoptions and must say "nothing to do".
 */
export function hasChanges(plan: Plan): boolean {
  return plan.actions.some(isWrite);
}
