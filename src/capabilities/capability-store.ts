// The capability records as the state db keeps them (StateStore's getCapability and setCapability): all this
// module needs of the store. A test's table may answer synchronously.
import type { CapabilityRecord } from '../state/records.ts';

export interface CapabilityStore {
  getCapability(name: string): Promise<CapabilityRecord | undefined> | CapabilityRecord | undefined;
  setCapability(name: string, usable: boolean, detail?: string | null): Promise<void> | void;
}
