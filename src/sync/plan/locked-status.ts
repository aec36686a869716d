// Remote states the marketplace owns: an offer in one of them is never updated, archived or re-created
// (docs/architecture.md, Ownership).
export const LOCKED_STATUSES = ['sold', 'refunded', 'processing'] as const;
export type LockedStatus = (typeof LOCKED_STATUSES)[number];

export function isLocked(status: string | null | undefined): status is LockedStatus {
  return (LOCKED_STATUSES as readonly (string | null | undefined)[]).includes(status);
}
