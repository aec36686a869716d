// Bench-only adapter: our balancer as it runs in production (Replica, ReplicaRegistry, the sellers' leases in
// PostgreSQL, acquireWriterLease's heartbeat, the fenced journal write), with each seller's daemon replaced by
// runs of journal writes (seller-writes.ts). The sellers list grows as the bench adds sellers.
import type { Daemon } from '../../../src/daemon/daemon.ts';
import { Replica, type SellerDaemon } from '../../../src/daemon/replica.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import { openPostgresStateStore } from '../../../src/state/open-state-store.ts';
import type { PostgresStateDatabase } from '../../../src/state/postgres-state-database.ts';
import type { LeaseClaim } from '../../../src/state/records.ts';
import { ReplicaRegistry } from '../../../src/state/replica-registry.ts';
import type { StateStore } from '../../../src/state/state-store.ts';
import { acquireWriterLease, type HeldLease } from '../../../src/state/writer-lease.ts';
import type { EngineOptions, RunningEngine } from './engine.ts';
import { type RunShape, runWrites } from './seller-writes.ts';

/** Runs of this process: one count for all its sellers' daemons, so a run id is never used twice. */
let runs = 0;

/** A seller's daemon reduced to what matters here: take the lease, then runs back to back while it holds. */
class WritingDaemon implements SellerDaemon {
  readonly #stop = new AbortController();
  #loop: Promise<void> = Promise.resolve();
  #lease: HeldLease | null = null;

  constructor(
    private readonly seller: string,
    private readonly store: StateStore,
    private readonly claim: LeaseClaim,
    private readonly writer: string,
    private readonly ttlMs: number,
    private readonly shape: RunShape,
  ) {}

  async start(): Promise<void> {
    const lease = await acquireWriterLease(this.store, {
      ttlMs: this.ttlMs,
      waitMs: Number.POSITIVE_INFINITY,
      claim: this.claim,
      signal: this.#stop.signal,
    });
    this.#lease = lease;
    const signal = AbortSignal.any([this.#stop.signal, lease.lost]);
    this.#loop = (async () => {
      while (!signal.aborted) {
        const runId = `${this.writer}#${this.seller}#${++runs}`;
        const end = await runWrites(this.store, runId, this.shape, signal);
        // Refused by the fence: the lease moved on; the replica drops this seller at its next round.
        if (end === 'fenced') return;
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    await this.#lease?.release();
  }

  health(): ReturnType<Daemon['health']> {
    return { ok: true, ready: this.#lease !== null, detail: {} };
  }

  async statusPage(): Promise<string | null> {
    return null;
  }
}

export async function startBalancerEngine(database: PostgresStateDatabase, o: EngineOptions): Promise<RunningEngine> {
  const sellers: string[] = [];
  const replica = new Replica({
    // Read at every round, as the state db's sellers are: the bench's list grows when it adds one.
    sellers: async () => sellers.map((seller) => ({ seller, revision: '1' })),
    registry: new ReplicaRegistry(database),
    logger: silentLogger,
    leaseTtlMs: o.ttlMs,
    health: null,
    async openSeller(seller, claim) {
      const store = await openPostgresStateStore(seller, { url: o.url }, { database });
      return {
        daemon: new WritingDaemon(seller, store, claim, o.writer, o.ttlMs, o.shape),
        tryLease: async (c, ttl) => (await store.acquireLease(c, ttl)).ok,
        close: () => store.close(),
      };
    },
  });
  return {
    sellersChanged(now) {
      for (const s of now) if (!sellers.includes(s)) sellers.push(s);
    },
    start: () => replica.start(),
    stop: () => replica.stop(),
  };
}
