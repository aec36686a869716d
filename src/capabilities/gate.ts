// Probe, then follow: the first use of a route whose support is unknown goes alone, the others wait for its
// verdict, which is remembered in the state db. Every probed route of the executor (account PATCH, the bulk
// routes, archive-and-recreate, the item and top-up archive routes) goes through this one gate.
import type { CapabilityStore } from './capability-store.ts';
import type { CapabilityName } from './names.ts';

export interface ProbedCall<T> {
  readonly capability: CapabilityName;
  /** The call by the route in question. */
  attempt(): Promise<T>;
  /** The detail to remember when `err` says the route is not served; null when the call failed otherwise. */
  refusal(err: unknown): Promise<string | null>;
  /** What to do instead once the route is known not to be served. */
  fallback(): Promise<T>;
  /** Whether the call that meets the refusal falls back too (true), or fails with its error (false). */
  readonly proberFallsBack: boolean;
}

export class CapabilityGate {
  private readonly probes = new Map<CapabilityName, Promise<void>>();

  constructor(private readonly memory: CapabilityStore) {}

  /** Runs the call by its route, probing it first when its support is unknown; a refusal at any time flips it. */
  async call<T>(c: ProbedCall<T>): Promise<T> {
    for (;;) {
      const known = await this.memory.getCapability(c.capability);
      if (known && !known.usable) return c.fallback();
      if (known) return this.settle(c, await this.attempt(c));
      const probe = this.probes.get(c.capability);
      if (!probe) break;
      await probe;
    }
    let release!: () => void;
    this.probes.set(c.capability, new Promise<void>((r) => (release = r)));
    let result: Attempt<T>;
    try {
      result = await this.attempt(c);
      if (result.served) await this.memory.setCapability(c.capability, true, null);
    } finally {
      // Settled either way: the capability is known now, or the probe failed for another reason (a 5xx) and
      // the next waiter probes again.
      this.probes.delete(c.capability);
      release();
    }
    return this.settle(c, result);
  }

  private async attempt<T>(c: ProbedCall<T>): Promise<Attempt<T>> {
    try {
      return { served: true, out: await c.attempt() };
    } catch (err) {
      const detail = await c.refusal(err);
      if (detail === null) throw err;
      await this.memory.setCapability(c.capability, false, detail);
      return { served: false, err };
    }
  }

  private settle<T>(c: ProbedCall<T>, result: Attempt<T>): Promise<T> | T {
    if (result.served) return result.out;
    if (!c.proberFallsBack) throw result.err;
    return c.fallback();
  }
}

type Attempt<T> = { readonly served: true; readonly out: T } | { readonly served: false; readonly err: unknown };
