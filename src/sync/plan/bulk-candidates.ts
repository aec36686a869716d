// The write routes a marketplace of this kind may serve, as data: the document shows account bulk-remove and
// top-up bulk-update only and says "not shown" for the rest, so each is probed (capabilities/gate.ts), its body
// key and batch limit learnt from its 422 answers (execute/bulk-learning.ts), and a refusal falls back per batch. The
// single-offer archives of items and top-ups (PATCH status=archived, DELETE) are candidates of the same kind.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { BulkOp } from '../../marketplace/marketplace-client.ts';
import { CAPABILITIES, type CapabilityId, type CapabilityName } from '../../capabilities/names.ts';

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
  /**
   * Each element: the offer (its marketplace id and the fields sent) or its id alone. Never its external_id: a
   * server may find an element by external_id first, and an all-digit one as another offer's id.
   */
  readonly element: 'offer' | 'id';
  /**
   * The fields an element carries, each with the keys it goes under; an update of any other field goes by the
   * offer's own PATCH. Absent: every field, under its own name.
   */
  readonly fields?: Readonly<Record<string, readonly string[]>>;
}

/**
 * What the real top-up bulk-update reads of an element; it ignores any other key with a 200. A title and an
 * amount go under the document's name and the real one: each server reads its own and ignores the other.
 */
const TOP_UP_BULK_FIELDS: Readonly<Record<string, readonly string[]>> = {
  price: ['price'],
  stock: ['stock'],
  region: ['region'],
  platform: ['platform'],
  service_label: ['service_label'],
  instructions: ['instructions'],
  status: ['status'],
  offer_title: ['offer_title', 'title'],
  offer_amount: ['offer_amount', 'amount'],
};

export const BULK_CANDIDATES = {
  topUpUpdate: {
    capability: CAPABILITIES.topUpBulkUpdate,
    id: 'topUpBulkUpdate',
    kind: 'topup',
    op: 'bulk-update',
    route: 'POST /top-ups/bulk-update',
    key: 'offers',
    element: 'offer',
    fields: TOP_UP_BULK_FIELDS,
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

/** Whether an element of `c` carries `field` (else the field goes by the offer's own route). */
export function carries(c: BulkCandidate, field: string): boolean {
  return c.fields === undefined || Object.hasOwn(c.fields, field);
}

/** The element `c` sends for an offer: its marketplace id, and each field under the keys the route reads. */
export function bulkElement(c: BulkCandidate, remoteId: number, body: Readonly<Record<string, unknown>>): unknown {
  if (c.element === 'id') return remoteId;
  const out: Record<string, unknown> = { id: remoteId };
  for (const [field, value] of Object.entries(body)) for (const key of c.fields?.[field] ?? [field]) out[key] = value;
  return out;
}

/** The bulk route an update of each kind takes (accounts have none). */
export const UPDATE_CANDIDATE: Readonly<Partial<Record<OfferKind, BulkCandidateId>>> = {
  item: 'itemUpdate',
  topup: 'topUpUpdate',
};

/**
 * The bulk routes an archive of each kind may take, in order: bulk-update with status archived first (the
 * same route the kind's updates probe, so no extra probe), then bulk-remove; then each offer by the
 * SINGLE_ARCHIVE_CANDIDATES. Accounts keep their documented bulk-remove (execute/route-bulk.ts).
 */
export const ARCHIVE_CANDIDATES: Readonly<Partial<Record<OfferKind, readonly BulkCandidateId[]>>> = {
  item: ['itemUpdate', 'itemRemove'],
  topup: ['topUpUpdate', 'topUpRemove'],
};

/** A route that archives one item or top-up. */
export interface ArchiveRouteCandidate {
  readonly capability: CapabilityName;
  readonly id: CapabilityId;
  readonly kind: 'item' | 'topup';
  readonly method: 'PATCH' | 'DELETE';
  /** Method and path, as the logs and the seller's messages name it. */
  readonly route: string;
}

export const ARCHIVE_ROUTES = {
  itemPatch: {
    capability: CAPABILITIES.itemArchiveByPatch,
    id: 'itemArchiveByPatch',
    kind: 'item',
    method: 'PATCH',
    route: 'PATCH /items/{id} status=archived',
  },
  itemDelete: {
    capability: CAPABILITIES.itemDelete,
    id: 'itemDelete',
    kind: 'item',
    method: 'DELETE',
    route: 'DELETE /items/{id}',
  },
  topUpPatch: {
    capability: CAPABILITIES.topUpArchiveByPatch,
    id: 'topUpArchiveByPatch',
    kind: 'topup',
    method: 'PATCH',
    route: 'PATCH /top-ups/{id} status=archived',
  },
  topUpDelete: {
    capability: CAPABILITIES.topUpDelete,
    id: 'topUpDelete',
    kind: 'topup',
    method: 'DELETE',
    route: 'DELETE /top-ups/{id}',
  },
} as const satisfies Record<string, ArchiveRouteCandidate>;
export type ArchiveRouteId = keyof typeof ARCHIVE_ROUTES;

/**
 * The routes an item or top-up archive takes one offer at a time (after the bulk ones, or when it goes alone), in
 * order. Both cost one request per offer, so neither saves one: the documented route goes first, PATCH with
 * status archived (an update the document shows for both kinds; for top-ups a documented transition), which
 * leaves the offer listed as archived, as the next run's snapshot expects. DELETE, which the document shows for
 * accounts only, is used once the kind's PATCH status=archived is refused (404 for an offer that exists, 405,
 * 422, 501); when both are refused the documented PATCH is still sent, so the offer's own answer is reported.
 */
export const SINGLE_ARCHIVE_CANDIDATES: Readonly<Record<'item' | 'topup', readonly ArchiveRouteId[]>> = {
  item: ['itemPatch', 'itemDelete'],
  topup: ['topUpPatch', 'topUpDelete'],
};
