// Routes and body shapes the API document does not promise: learnt by trying, remembered in the state db
// (docs/architecture.md, Capabilities). The planner routes by what is known; the executor's CapabilityGate
// learns what is not.
import { capabilityUsable } from '../state/capability-reprobe.ts';
import type { CapabilityRecord } from '../state/records.ts';
import { statusOf } from './errors.ts';

export const CAPABILITIES = {
  accountUpdate: 'PATCH /accounts/{id}',
  accountBulkRemove: 'POST /accounts/bulk-remove {ids}',
  topUpBulkUpdate: 'POST /top-ups/bulk-update {offers}',
  // Not in the document; commonly served by marketplaces of this kind (bulk-candidates.ts).
  itemBulkUpdate: 'POST /items/bulk-update {offers}',
  itemBulkRemove: 'POST /items/bulk-remove {ids}',
  topUpBulkRemove: 'POST /top-ups/bulk-remove {ids}',
  // The single-offer archives of items and top-ups (bulk-candidates.ts, ARCHIVE_ROUTES): the documented update
  // with status archived, and DELETE, which the document shows for accounts only.
  itemArchiveByPatch: 'PATCH /items/{id} {status: archived}',
  topUpArchiveByPatch: 'PATCH /top-ups/{id} {status: archived}',
  itemDelete: 'DELETE /items/{id}',
  topUpDelete: 'DELETE /top-ups/{id}',
  /** Whether a create after archiving frees the external_id (the accounts.updateFallback: recreate path). */
  accountRecreate: 'POST /accounts after DELETE, same external_id',
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

/** unknown: never tried on this state db; the first use probes it. */
export type CapabilityVerdict = 'usable' | 'unusable' | 'unknown';
export type Capabilities = Readonly<Record<CapabilityId, CapabilityVerdict>>;

export const UNKNOWN_CAPABILITIES: Capabilities = {
  accountUpdate: 'unknown',
  accountBulkRemove: 'unknown',
  topUpBulkUpdate: 'unknown',
  itemBulkUpdate: 'unknown',
  itemBulkRemove: 'unknown',
  topUpBulkRemove: 'unknown',
  itemArchiveByPatch: 'unknown',
  topUpArchiveByPatch: 'unknown',
  itemDelete: 'unknown',
  topUpDelete: 'unknown',
  accountRecreate: 'unknown',
};

export async function readCapabilities(
  get: (name: CapabilityName) => Promise<CapabilityRecord | undefined> | CapabilityRecord | undefined,
): Promise<Capabilities> {
  const verdict = async (id: CapabilityId): Promise<CapabilityVerdict> => {
    const rec = await get(CAPABILITIES[id]);
    return rec === undefined ? 'unknown' : rec.usable ? 'usable' : 'unusable';
  };
  const ids = Object.keys(CAPABILITIES) as CapabilityId[];
  const verdicts = await Promise.all(ids.map(async (id) => [id, await verdict(id)] as const));
  return Object.fromEntries(verdicts) as Record<CapabilityId, CapabilityVerdict>;
}

/** A refusal that says "this route or body shape is not served", as opposed to "this offer failed". */
export function isCapabilityRefusal(err: unknown): boolean {
  const status = statusOf(err);
  return status === 404 || status === 405 || status === 422 || status === 501;
}

/**
 * The state db's verdicts, with a refusal older than `reprobeAfterMs` read as never tried: the next use probes
 * the route again with one request (the others wait for its verdict), as a marketplace may add it later.
 */
export function reprobingMemory(
  store: {
    getCapability(name: string): Promise<CapabilityRecord | undefined> | CapabilityRecord | undefined;
    setCapability(name: string, usable: boolean, detail?: string | null): Promise<void> | void;
  },
  now: () => number,
  reprobeAfterMs: number,
): {
  getCapability(name: string): Promise<CapabilityRecord | undefined>;
  setCapability(name: string, usable: boolean, detail?: string | null): Promise<void>;
} {
  return {
    async getCapability(name) {
      const rec = await store.getCapability(name);
      return capabilityUsable(rec, now(), reprobeAfterMs) === undefined ? undefined : rec;
    },
    setCapability: async (name, usable, detail) => store.setCapability(name, usable, detail),
  };
}
