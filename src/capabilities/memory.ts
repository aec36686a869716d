// What the marketplace client asks, synchronously and in the middle of a request, about routes the API document
// does not promise (lookup by path, the list filter). Without a memory of the state db (open-capabilities.ts),
// the client remembers for its own lifetime.
import type { Logger } from '../log/logger.ts';
import { errorMessage } from '../log/scrubber.ts';
import type { CapabilityRecord } from '../state/records.ts';
import type { CapabilityStore } from './capability-store.ts';
import { capabilityUsable } from './reprobe.ts';

export interface CapabilityMemory {
  /** false: refused (skip it); true: served; undefined: never tried, or refused long enough ago to try again. */
  usable(name: string): boolean | undefined;
  remember(name: string, usable: boolean, detail: string | null): void;
}

export function inMemoryCapabilities(): CapabilityMemory {
  const verdicts = new Map<string, boolean>();
  return {
    usable: (name) => verdicts.get(name),
    remember: (name, usable) => void verdicts.set(name, usable),
  };
}

/**
 * The verdicts loaded from the state db, read through the reprobe interval; a new verdict is kept here at once
 * and written through to the state db (a lost write only means a new probe, so it is logged, not thrown).
 */
export function storedCapabilities(
  loaded: readonly CapabilityRecord[],
  store: Pick<CapabilityStore, 'setCapability'>,
  now: () => number,
  reprobeAfterMs: number,
  logger: Logger,
): CapabilityMemory {
  const verdicts = new Map(loaded.map((c) => [c.name, c]));
  return {
    usable: (name) => capabilityUsable(verdicts.get(name), now(), reprobeAfterMs),
    remember: (name, usable, detail) => {
      verdicts.set(name, { name, usable, detail, learntAt: now() });
      Promise.resolve(store.setCapability(name, usable, detail)).catch((err: unknown) => {
        logger.warn({ capability: name, err: errorMessage(err) }, 'capability verdict not saved: probed again');
      });
    },
  };
}
