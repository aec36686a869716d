// Routes and body shapes the API document does not promise, by name: each is learnt by trying and remembered in
// the state db under its name (docs/architecture.md, Capabilities).

export const CAPABILITIES = {
  accountUpdate: 'PATCH /accounts/{id}',
  accountBulkRemove: 'POST /accounts/bulk-remove {ids}',
  topUpBulkUpdate: 'POST /top-ups/bulk-update {offers}',
  // Not in the document; commonly served by marketplaces of this kind (sync/plan/bulk-candidates.ts).
  itemBulkUpdate: 'POST /items/bulk-update {offers}',
  itemBulkRemove: 'POST /items/bulk-remove {ids}',
  topUpBulkRemove: 'POST /top-ups/bulk-remove {ids}',
  // The single-offer archives of items and top-ups (sync/plan/bulk-candidates.ts, ARCHIVE_ROUTES): the documented
  // update with status archived, and DELETE, which the document shows for accounts only.
  itemArchiveByPatch: 'PATCH /items/{id} {status: archived}',
  topUpArchiveByPatch: 'PATCH /top-ups/{id} {status: archived}',
  itemDelete: 'DELETE /items/{id}',
  topUpDelete: 'DELETE /top-ups/{id}',
  /** Whether a create after archiving frees the external_id (the accounts.updateFallback: recreate path). */
  accountRecreate: 'POST /accounts after DELETE, same external_id',
  /** Whether the single item PATCH takes game (the document lists five fields without it; a real server takes it). */
  itemGameUpdate: 'PATCH /items/{id} {game}',
} as const;
export type CapabilityId = keyof typeof CAPABILITIES;
export type CapabilityName = (typeof CAPABILITIES)[CapabilityId];

/** What the seller reads when an account update cannot be sent because a route is not served. */
export const NOT_SERVED = {
  accountUpdate:
    'the marketplace does not serve PATCH /accounts/{id}; set accounts.updateFallback: recreate to archive ' +
    'and create it anew',
  accountRecreate:
    'the marketplace does not serve PATCH /accounts/{id}, and it keeps archived external_ids, so it cannot ' +
    'be re-created either',
} as const;

/**
 * Names of what a bulk route's 422 answers taught (its body key, its batch limit), kept beside the capabilities
 * in the state db with the value as their detail.
 */
export const learntKeyName = (c: { readonly route: string }): string => `${c.route}: body key`;
export const learntLimitName = (c: { readonly route: string }): string => `${c.route}: batch limit`;
