// What the planner decides: a list of actions, each with its reason and the fields it changes.
import type { DesiredOffer, ImageRef, OfferKind } from '../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';

/** One field an action changes. `from` is the live value where the server echoes it, else the last applied. */
export interface FieldChange {
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
  /** changed: the catalogue changed; drift: the website changed it; unsent: never sent (e.g. after adoption). */
  readonly why: 'changed' | 'drift' | 'unsent';
}

export interface CreateAction {
  readonly type: 'create';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly desired: DesiredOffer;
  /** The body fields to send (without credentials and image_ids: the executor adds them). */
  readonly fields: Readonly<Record<string, unknown>>;
  /**
   * The remote list of this kind was incomplete or incremental, so "not in the snapshot" does not prove
   * "not on the marketplace": the executor looks it up by external_id before creating.
   */
  readonly verifyFirst: boolean;
  readonly reason: string;
}

export interface UpdateAction {
  readonly type: 'update';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly remoteId: number;
  readonly desired: DesiredOffer;
  readonly changes: readonly FieldChange[];
  /** Credentials changed (compared by HMAC): the executor sends the desired credentials. */
  readonly sendCredentials: boolean;
  /** The gallery changed: the executor sends image_ids resolved after uploads. */
  readonly sendImages: boolean;
  /** relist: the offer was archived on the marketplace but is still in the catalogue. */
  readonly reason: 'changed' | 'drift' | 'relist' | 'adopted';
}

export interface ArchiveAction {
  readonly type: 'archive';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly remoteId: number;
  readonly reason: string;
}

/** Found on the marketplace under its external_id but not in state: remember the mapping, never create. */
export interface AdoptAction {
  readonly type: 'adopt';
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly remote: RemoteOffer;
  readonly desired: DesiredOffer | null;
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
}

export type PlanAction = CreateAction | UpdateAction | ArchiveAction | AdoptAction | UploadAction | NoopAction;
export type WriteAction = CreateAction | UpdateAction | ArchiveAction | UploadAction;

export interface GuardVerdict {
  readonly tripped: boolean;
  readonly archives: number;
  readonly limit: number;
  readonly message?: string;
}

export interface Plan {
  readonly actions: readonly PlanAction[];
  readonly guard: GuardVerdict;
  /** Why no archive was planned at all, when the catalogue or the remote picture was incomplete. */
  readonly archiveSuppressed: readonly string[];
  /** Problems the seller must see (remote duplicates, conflicts). */
  readonly warnings: readonly string[];
}

export function isWrite(a: PlanAction): a is WriteAction {
  return a.type === 'create' || a.type === 'update' || a.type === 'archive' || a.type === 'upload';
}

/** An adopt that carries no later update still writes state, not the marketplace. */
export function hasChanges(plan: Plan): boolean {
  return plan.actions.some((a) => isWrite(a) || a.type === 'adopt');
}

export function offerKey(kind: OfferKind, externalId: string): string {
  return `${kind}:${externalId}`;
}
