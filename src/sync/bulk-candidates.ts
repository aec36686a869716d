// The bulk routes a marketplace of this kind may serve, as data: the document shows account bulk-remove and
// top-up bulk-update only and says "not shown" for the rest, so each is probed (capability-gate.ts), its body
// key and batch limit learnt from its 422 answers (bulk-learning.ts), and a refusal falls back per batch.
import type { OfferKind } from '../catalogue/desired-offer.ts';
import type { BulkOp } from '../marketplace/marketplace-client.ts';
import { CAPABILITIES, type CapabilityId, type CapabilityName } from './capabilities.ts';

export interface BulkCandidate {
  readonly capability: CapabilityName;
  /** Its verdict in the planner's Capabilities. */
  readonly id: CapabilityId;
  readonly kind: OfferKind;
  readonly op: BulkOp;
  /** Method and path, as status names what was learnt of it. */
  readonly route: string;
  /** The body key tried first; a 422 naming another one teaches the key to use. */
  readonly key: string;
  /** Each element: the offer (id, external_id and the fields sent) or its id alone. */
  readonly element: 'offer' | 'id';
}

export const BULK_CANDIDATES = {
  topUpUpdate: {
    capability: CAPABILITIES.topUpBulkUpdate,
    id: 'topUpBulkUpdate',
    kind: 'topup',
    op: 'bulk-update',
    route: 'POST /top-ups/bulk-update',
    key: 'offers',
    element: 'offer',
  },
  itemUpdate: {
    capability: CAPABILITIES.itemBulkUpdate,
    id: 'itemBulkUpdate',
    kind: 'item',
    op: 'bulk-update',
    route: 'POST /items/bulk-update',
    key: 'offers',
    element: 'offer',
  },
  itemRemove: {
    capability: CAPABILITIES.itemBulkRemove,
    id: 'itemBulkRemove',
    kind: 'item',
    op: 'bulk-remove',
    route: 'POST /items/bulk-remove',
    key: 'ids',
    element: 'id',
  },
  topUpRemove: {
    capability: CAPABILITIES.topUpBulkRemove,
    id: 'topUpBulkRemove',
    kind: 'topup',
    op: 'bulk-remove',
    route: 'POST /top-ups/bulk-remove',
    key: 'ids',
    element: 'id',
  },
} as const satisfies Record<string, BulkCandidate>;
export type BulkCandidateId = keyof typeof BULK_CANDIDATES;

/** The bulk route an update of each kind takes (accounts have none). */
export const UPDATE_CANDIDATE: Readonly<Partial<Record<OfferKind, BulkCandidateId>>> = {
  item: 'itemUpdate',
  topup: 'topUpUpdate',
};

/**
 * The bulk routes an archive of each kind may take, in order: bulk-update with status archived first (the
 * same route the kind's updates probe, so no extra probe), then bulk-remove. Accounts keep their documented
 * bulk-remove (route-bulk.ts).
 */
export const ARCHIVE_CANDIDATES: Readonly<Partial<Record<OfferKind, readonly BulkCandidateId[]>>> = {
  item: ['itemUpdate', 'itemRemove'],
  topup: ['topUpUpdate', 'topUpRemove'],
};

/** Names of what a route's 422 answers taught, kept beside the capabilities in the state db. */
export const learntKeyName = (c: BulkCandidate): string => `${c.route}: body key`;
export const learntLimitName = (c: BulkCandidate): string => `${c.route}: batch limit`;
