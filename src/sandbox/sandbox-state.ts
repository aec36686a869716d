// SandboxState: what a running sandbox holds and its controls change: the store (one per API key with
// sellerPerKey), faults, representation, bulk switches, the rate limiter, counters and idempotency keys.
import type { IncomingMessage } from 'node:http';
import type { ApiContext } from './api-route.ts';
import { Counters } from './counters.ts';
import { FaultInjector } from './faults.ts';
import { IdempotencyKeys } from './idempotency.ts';
import { loadStore, saveStore } from './persist.ts';
import { RateLimiter } from './rate-limit.ts';
import type { RateLimit, ResolvedOptions, SandboxBulk, SandboxRepresentation } from './sandbox-options.ts';
import type { SandboxStore } from './store.ts';
import { WindowLimiter } from './window-limiter.ts';

/** The token bucket per key, or the site's window per address in front of everything. */
function limiterOf(r: RateLimit | null): RateLimiter | WindowLimiter | null {
  if (r === null) return null;
  return 'window' in r ? new WindowLimiter(r) : new RateLimiter(r);
}

export class SandboxState {
  readonly options: ResolvedOptions;
  representation: SandboxRepresentation;
  store: SandboxStore;
  faults: FaultInjector;
  bulk: SandboxBulk;
  limiter: RateLimiter | WindowLimiter | null;
  readonly counters = new Counters();
  readonly idempotency = new IdempotencyKeys();
  readonly #keys: ReadonlySet<string>;
  /** sellerPerKey: one store per API key, made on its first request. */
  readonly #sellerStores = new Map<string, SandboxStore>();

  constructor(options: ResolvedOptions) {
    this.options = options;
    this.representation = options.representation;
    this.store = this.#stamped(loadStore(options.persistFile));
    this.faults = new FaultInjector(options.faults);
    this.bulk = options.bulk;
    this.limiter = limiterOf(options.rateLimit);
    this.#keys = new Set(options.apiKeys);
  }

  /** Every store stamps its writes under the representation of the moment, changed or not since it was made. */
  #stamped(s: SandboxStore): SandboxStore {
    s.stamps = () => this.representation;
    return s;
  }

  storeFor(key: string): SandboxStore {
    if (!this.options.sellerPerKey) return this.store;
    let s = this.#sellerStores.get(key);
    if (!s) {
      s = this.#stamped(loadStore(undefined));
      this.#sellerStores.set(key, s);
    }
    return s;
  }

  allStores(): SandboxStore[] {
    return this.options.sellerPerKey ? [...this.#sellerStores.values()] : [this.store];
  }

  /** What a route handler of the request of API key `key` gets. */
  context(key: string): ApiContext {
    return {
      store: this.storeFor(key),
      representation: this.representation,
      bulk: this.bulk,
      limits: {
        defaultPerPage: this.options.defaultPerPage,
        maxPerPage: this.options.maxPerPage,
        maxUploadBytes: this.options.maxUploadBytes,
      },
      // The faults of the moment asked: a handler asks after its body is read, when they may have changed.
      isDisabled: (name) => this.faults.faults.disabled?.includes(name) === true,
      errorInfoBodies: this.faults.faults.errorInfoBodies === true,
    };
  }

  /** The request's API key when it is one of the sandbox's. */
  bearer(req: IncomingMessage): string | undefined {
    const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    return m && this.#keys.has(m[1]!) ? m[1] : undefined;
  }

  /** The store written to the persist file, when there is one. */
  persist(): void {
    saveStore(this.options.persistFile, this.store);
  }

  setRateLimit(r: RateLimit | null): void {
    this.limiter = limiterOf(r);
  }

  /** Empty store, zero counters, faults, representation and rate limit back to the start options. */
  reset(): void {
    this.store.clear();
    this.store = this.#stamped(loadStore(undefined));
    this.#sellerStores.clear();
    this.persist();
    this.counters.reset();
    this.idempotency.clear();
    this.faults = new FaultInjector(this.options.faults);
    this.representation = this.options.representation;
    this.bulk = this.options.bulk;
    this.limiter = limiterOf(this.options.rateLimit);
  }
}
