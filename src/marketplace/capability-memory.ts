// Where the client keeps what it learnt about routes the API document does not promise (lookup by path, the
// list filter): the CLI wires it to the state db, so the verdict outlives the process and is probed again
// after an interval. Without one, the client remembers for its own lifetime.

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
