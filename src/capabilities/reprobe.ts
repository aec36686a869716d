// When a remembered capability verdict stops counting: a refusal is asked again after an interval
// (capabilities.reprobeAfterHours), with one request, since a marketplace may add a route later. A route found
// served stays served until it refuses.
import type { CapabilityRecord } from '../state/records.ts';
import type { CapabilityStore } from './capability-store.ts';

/** true served, false refused, undefined never tried or refused at least `reprobeAfterMs` ago. */
export function capabilityUsable(
  rec: Pick<CapabilityRecord, 'usable' | 'learntAt'> | undefined,
  now: number,
  reprobeAfterMs: number,
): boolean | undefined {
  if (!rec) return undefined;
  if (rec.usable) return true;
  return now - rec.learntAt >= reprobeAfterMs ? undefined : false;
}

/** When a refused capability is asked again (epoch ms); null for one found served. */
export function reprobeAt(rec: Pick<CapabilityRecord, 'usable' | 'learntAt'>, reprobeAfterMs: number): number | null {
  return rec.usable ? null : rec.learntAt + reprobeAfterMs;
}

/**
 * The state db's verdicts, with a refusal older than `reprobeAfterMs` read as never tried: the next use probes
 * the route again with one request (the others wait for its verdict), as a marketplace may add it later.
 */
export function reprobingMemory(
  store: CapabilityStore,
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
