// Routes and body shapes the API document does not promise (DESIGN.md decision 11): learnt by trying, remembered.
export const CAPABILITIES = {
  accountUpdate: 'PATCH /accounts/{id}',
  accountBulkRemove: 'POST /accounts/bulk-remove {ids}',
  topUpBulkUpdate: 'POST /top-ups/bulk-update {offers}',
  /** Whether a create after archiving frees the external_id (the accounts.updateFallback: recreate path). */
  accountRecreate: 'POST /accounts after DELETE, same external_id',
} as const;
export type CapabilityName = (typeof CAPABILITIES)[keyof typeof CAPABILITIES];

/** A refusal that says "this route or body shape is not served", as opposed to "this offer failed". */
export function isCapabilityRefusal(err: unknown): boolean {
  const status = (err as { status?: number }).status;
  return status === 404 || status === 405 || status === 422 || status === 501;
}
