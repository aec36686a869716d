// The one call that wires the capabilities of a state db: the memory the marketplace client asks mid-request,
// loaded from the store and written through to it. The executor's runs read and probe the same records through
// reprobingMemory (reprobe.ts) and the CapabilityGate (gate.ts), with the same interval.
import type { Logger } from '../log/logger.ts';
import type { CapabilityRecord } from '../state/records.ts';
import type { CapabilityStore } from './capability-store.ts';
import { type CapabilityMemory, storedCapabilities } from './memory.ts';

export interface CapabilitiesDeps {
  readonly store: CapabilityStore & { listCapabilities(): Promise<CapabilityRecord[]> };
  /** Epoch ms. */
  readonly now: () => number;
  /** A refusal older than this is asked again (capabilities.reprobeAfterHours). */
  readonly reprobeAfterMs: number;
  /** Where a verdict that could not be saved is told. */
  readonly logger: Logger;
}

export async function openCapabilities(deps: CapabilitiesDeps): Promise<CapabilityMemory> {
  const loaded = await deps.store.listCapabilities();
  return storedCapabilities(loaded, deps.store, deps.now, deps.reprobeAfterMs, deps.logger);
}
