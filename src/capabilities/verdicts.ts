// The verdicts the planner routes by: each capability read from the state db as usable, unusable or never tried.
import type { CapabilityStore } from './capability-store.ts';
import { CAPABILITIES, type CapabilityId, type CapabilityName } from './names.ts';
import { reprobingMemory } from './reprobe.ts';

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
  itemGameUpdate: 'unknown',
};

export async function readCapabilities(
  get: (name: CapabilityName) => ReturnType<CapabilityStore['getCapability']>,
): Promise<Capabilities> {
  const verdict = async (id: CapabilityId): Promise<CapabilityVerdict> => {
    const rec = await get(CAPABILITIES[id]);
    return rec === undefined ? 'unknown' : rec.usable ? 'usable' : 'unusable';
  };
  const ids = Object.keys(CAPABILITIES) as CapabilityId[];
  const verdicts = await Promise.all(ids.map(async (id) => [id, await verdict(id)] as const));
  return Object.fromEntries(verdicts) as Record<CapabilityId, CapabilityVerdict>;
}

/** The verdicts as the executor's gate will find them: a refusal older than `reprobeAfterMs` reads as unknown. */
export function readReprobedCapabilities(
  store: CapabilityStore,
  now: () => number,
  reprobeAfterMs: number,
): Promise<Capabilities> {
  const memory = reprobingMemory(store, now, reprobeAfterMs);
  return readCapabilities((name) => memory.getCapability(name));
}
