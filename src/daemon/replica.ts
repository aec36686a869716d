// One daemon process serving many sellers. Each seller gets a Daemon of its own (its catalogue watcher,
// schedule, queue, lease and metrics); this decides which sellers run here.
// - sqlite state: every seller of the configuration runs here (each seller's file has its own lease).
// - PostgreSQL state: replicas share the sellers. Each claims free sellers up to a fair share (sellers / live
//   replicas, rounded up), keeps them by the leases' heartbeat, gives back what is above its share when a
//   replica joins, and takes over the sellers of a replica that died once their leases expire. SIGTERM
//   releases its leases at once. The list of sellers is read again at every round (every leaseTtlMs / 3): a
//   seller added runs within one lease period, a removed one stops and lets go of its lease, a changed one
//   (another catalogue, another key file) restarts on its new configuration.
import type { Logger } from '../log/logger.ts';
import type { LeaseClaim } from '../state/records.ts';
import type { ReplicaRegistry, SellerHolder } from '../state/replica-registry.ts';
import { localClaim } from '../state/writer-lease.ts';
import { errorMessage } from '../log/scrubber.ts';
import type { Daemon } from './daemon.ts';
import { type FleetSellerView, readSellerFigures, remoteSellerView, type SellerState } from '../status/fleet-board.ts';
import { renderFleetPage } from '../status/fleet-page.ts';
import { renderStatusPage } from '../status/status-page.ts';
import { startHealthServer, type HealthServer, type HealthServerOptions } from './health-server.ts';
import { DaemonMetrics, type MetricsScope } from './metrics.ts';

/** What the replica needs of a seller's daemon. */
export type SellerDaemon = Pick<Daemon, 'start' | 'stop' | 'health' | 'statusPage'>;

/** A seller running here: its daemon, and what to close once the daemon stopped. */
export interface SellerRuntime {
  readonly daemon: SellerDaemon;
  /** Takes the seller's lease for `claim` now, without waiting: false when another replica holds it. */
  tryLease(claim: LeaseClaim, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** A seller to serve, and what identifies its configuration: a new revision restarts it. */
export interface SellerEntry {
  readonly seller: string;
  readonly revision: string;
}

export interface ReplicaOptions {
  /** The sellers to serve now, in order: asked at every round. */
  readonly sellers: () => Promise<readonly SellerEntry[]>;
  /**
   * Opens a seller's services and daemon (not started), recording into `metrics` (the seller's scope of the
   * replica's one registry); throws when the seller cannot run (no key...).
   */
  readonly openSeller: (seller: string, claim: LeaseClaim, metrics: MetricsScope) => Promise<SellerRuntime>;
  /** null: sqlite, every seller runs here. */
  readonly registry: ReplicaRegistry | null;
  readonly logger: Logger;
  readonly leaseTtlMs: number;
  readonly health: HealthServerOptions | null;
  /** Opens a seller's state for reading, for the fleet page and the pages of sellers held elsewhere. */
  readonly readState?: (seller: string) => Promise<SellerState>;
  /** How often the pages refresh themselves. Default 15 s. */
  readonly refreshSeconds?: number;
}

interface Held {
  readonly runtime: SellerRuntime;
  readonly metrics: MetricsScope;
  readonly started: Promise<void>;
  readonly revision: string;
}

export class Replica {
  readonly claim: LeaseClaim = localClaim();
  /** One registry for the process: runtime metrics once, each seller's series under its seller label. */
  readonly metrics = new DaemonMetrics();
  readonly #opts: ReplicaOptions;
  readonly #held = new Map<string, Held>();
  /** Sellers that failed to open here, with why, and the tick before which they are not tried again. */
  readonly #broken = new Map<string, { error: string; retryAt: number; revision: string }>();
  /** Sellers seen unheld, by the tick they were first seen so: claimed over the share after two ticks. */
  readonly #unheldSince = new Map<string, number>();
  #holders: SellerHolder[] = [];
  /** The sellers as the last round read them. */
  #sellers: readonly SellerEntry[] = [];
  #live = 1;
  #tick = 0;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | null = null;
  #stopping = false;
  #health: HealthServer | null = null;
  /** Why the last round failed (the database did not answer); null once one succeeds. */
  #trouble: string | null = null;

  constructor(opts: ReplicaOptions) {
    this.#opts = opts;
    this.metrics.configureSellers(() => this.#sellers.map((e) => e.seller));
  }

  get healthPort(): number | undefined {
    return this.#health?.port;
  }

  /** Sellers running here now. */
  heldSellers(): string[] {
    return [...this.#held.keys()].sort();
  }

  async start(): Promise<void> {
    if (this.#opts.health && this.#opts.health.port > 0)
      this.#health = await startHealthServer(this.#opts.health, this, this);
    this.#opts.logger.info({ replica: this.claim.holder }, 'replica starting');
    await this.#runTick();
    this.#timer = setInterval(() => void this.#runTick(), Math.max(100, this.#opts.leaseTtlMs / 3));
    this.#timer.unref();
  }

  #runTick(): Promise<void> {
    if (this.#ticking || this.#stopping) return this.#ticking ?? Promise.resolve();
    this.#ticking = this.#balance()
      .then(() => {
        this.#trouble = null;
      })
      .catch((err) => {
        this.#trouble = `balancing sellers failed (the state db does not answer?): ${errorMessage(err)}`;
        this.#opts.logger.error({ err: errorMessage(err) }, 'replica: balancing sellers failed');
      })
      .finally(() => {
        this.#ticking = null;
      });
    return this.#ticking;
  }

  /** One round: heartbeat, drop what was lost, give back what is above the share, claim what is free. */
  async #balance(): Promise<void> {
    this.#tick++;
    const registry = this.#opts.registry;
    this.#sellers = await this.#opts.sellers();
    const sellers = this.#sellers.map((s) => s.seller);
    const revisionOf = new Map(this.#sellers.map((s) => [s.seller, s.revision]));
    // Removed (`sellers remove`) or changed (`sellers add` over it): stopped here, its lease let go; a changed
    // one is claimed again below on its new configuration.
    for (const [seller, held] of [...this.#held]) {
      const revision = revisionOf.get(seller);
      if (revision === held.revision) continue;
      this.#opts.logger.info(
        { seller },
        revision === undefined ? 'seller removed: stopping it here' : 'seller changed: restarting it',
      );
      await this.#drop(seller);
    }
    for (const [seller, b] of [...this.#broken]) if (revisionOf.get(seller) !== b.revision) this.#broken.delete(seller);
    if (!registry) {
      for (const s of this.#sellers) if (!this.#held.has(s.seller)) await this.#claim(s, true);
      return;
    }
    this.#live = await registry.heartbeat(this.claim, this.#opts.leaseTtlMs);
    this.metrics.replicasLive.set(this.#live);
    this.#holders = await registry.holders(sellers);
    // The first round only announces this replica: replicas started together then count each other before
    // anyone claims, instead of the first one claiming every seller and giving most back a moment later.
    if (this.#tick === 1) return;
    const holderOf = new Map(this.#holders.map((h) => [h.seller, h]));
    const share = Math.ceil(sellers.length / this.#live);

    // A seller whose lease is no longer ours (we stalled past the TTL and someone took it): stop it here.
    for (const seller of [...this.#held.keys()]) {
      const h = holderOf.get(seller);
      if (!h || h.holder !== this.claim.holder || !h.live) {
        this.#opts.logger.warn({ seller, heldBy: h?.holder ?? null }, 'lost the seller lease: stopping it here');
        await this.#drop(seller);
      }
    }
    // Above the share (a replica joined): give back the last ones, released at once for the others to take.
    const mine = [...this.#held.keys()];
    while (mine.length > share) {
      const seller = mine.pop();
      if (!seller) break;
      this.#opts.logger.info({ seller, share, replicas: this.#live }, 'giving a seller back: above the fair share');
      await this.#drop(seller);
    }
    // Claim free sellers up to the share, starting at a point of our own so replicas do not all race for the
    // same one; a seller left unheld for two rounds is claimed even above the share (no one else took it).
    const offset = hashOffset(this.claim.holder, sellers.length);
    for (let i = 0; i < sellers.length; i++) {
      const entry = this.#sellers[(offset + i) % sellers.length];
      if (entry === undefined || this.#held.has(entry.seller)) continue;
      const seller = entry.seller;
      const h = holderOf.get(seller);
      if (h?.live) {
        this.#unheldSince.delete(seller);
        continue;
      }
      const since = this.#unheldSince.get(seller) ?? this.#tick;
      this.#unheldSince.set(seller, since);
      const overdue = this.#tick - since >= 2;
      if (this.#held.size >= share && !overdue) continue;
      await this.#claim(entry, false);
    }
    for (const seller of [...this.#unheldSince.keys()]) if (!revisionOf.has(seller)) this.#unheldSince.delete(seller);
  }

  /** Opens the seller and, with PostgreSQL, takes its lease; starts its daemon without waiting for its run. */
  async #claim(entry: SellerEntry, sqlite: boolean): Promise<void> {
    const seller = entry.seller;
    const broken = this.#broken.get(seller);
    if (broken && broken.retryAt > this.#tick) return;
    let runtime: SellerRuntime;
    const metrics = this.metrics.scope({ seller });
    try {
      runtime = await this.#opts.openSeller(seller, this.claim, metrics);
    } catch (err) {
      metrics.close();
      // One seller that cannot run (no key, a state that will not open) never stops the others.
      const error = errorMessage(err);
      this.#broken.set(seller, { error, retryAt: this.#tick + 10, revision: entry.revision });
      this.#opts.logger.error({ seller, err: error }, 'seller cannot start: retried later');
      return;
    }
    this.#broken.delete(seller);
    let leased = sqlite;
    try {
      leased ||= await runtime.tryLease(this.claim, this.#opts.leaseTtlMs);
    } catch (err) {
      this.#opts.logger.warn({ seller, err: errorMessage(err) }, 'seller lease not taken: the state db did not answer');
    }
    if (!leased) {
      metrics.close();
      void runtime.close();
      return;
    }
    this.#unheldSince.delete(seller);
    this.#opts.logger.info({ seller, replica: this.claim.holder }, 'seller claimed: running here');
    const started = runtime.daemon.start().catch((err) => {
      if (!this.#stopping) this.#opts.logger.error({ seller, err: errorMessage(err) }, 'seller daemon failed');
    });
    this.#held.set(seller, { runtime, metrics, started, revision: entry.revision });
  }

  /** Stops a seller here; its daemon lets go of the lease (a no-op when the lease was lost). */
  async #drop(seller: string): Promise<void> {
    const held = this.#held.get(seller);
    if (!held) return;
    this.#held.delete(seller);
    await held.runtime.daemon.stop();
    await held.runtime.close();
    held.metrics.close();
  }

  /** Ready when every seller held here finished its first run (a replica holding none is ready too). */
  health(): { ok: boolean; ready: boolean; detail: Record<string, unknown> } {
    const sellers: Record<string, unknown> = {};
    let ready = true;
    for (const { seller } of this.#sellers) {
      const held = this.#held.get(seller);
      const h = this.#holders.find((x) => x.seller === seller);
      if (held) {
        const one = held.runtime.daemon.health();
        if (!one.ready) ready = false;
        sellers[seller] = { here: true, ready: one.ready, ...one.detail };
      } else {
        sellers[seller] = {
          here: false,
          held_by: h?.live ? { replica: h.holder, host: h.hostname, pid: h.pid } : null,
          ...(this.#broken.has(seller) ? { error: this.#broken.get(seller)?.error } : {}),
        };
      }
    }
    return {
      ok: !this.#stopping,
      ready: ready && !this.#stopping && this.#trouble === null,
      detail: {
        ...(this.#trouble ? { reason: this.#trouble } : {}),
        replica: this.claim.holder,
        live_replicas: this.#live,
        fair_share: Math.ceil(this.#sellers.length / this.#live),
        held: this.heldSellers(),
        sellers,
      },
    };
  }

  /** Who holds a seller: this replica, or the live holder among `holders`. */
  #holderOf(seller: string, holders: readonly SellerHolder[]): FleetSellerView['heldBy'] {
    if (this.#held.has(seller)) return { replica: this.claim.holder, host: this.claim.hostname, pid: this.claim.pid };
    const h = holders.find((x) => x.seller === seller);
    return h?.live ? { replica: h.holder, host: h.hostname, pid: h.pid } : null;
  }

  /** The leases as the database holds them now (a page must not show the last round's, up to a round old). */
  async #freshHolders(): Promise<readonly SellerHolder[]> {
    const registry = this.#opts.registry;
    if (!registry) return [];
    try {
      return await registry.holders(this.#sellers.map((s) => s.seller));
    } catch {
      return this.#holders;
    }
  }

  /** The fleet page (`/`): every seller, who holds it, its last run, held and failed offers, sales today. */
  async statusPage(): Promise<string | null> {
    const readState = this.#opts.readState;
    if (!readState) return null;
    const now = Date.now();
    const holders = await this.#freshHolders();
    const sellers = await Promise.all(
      this.#sellers.map(async ({ seller }): Promise<FleetSellerView> => {
        const base = {
          seller,
          here: this.#held.has(seller),
          heldBy: this.#holderOf(seller, holders),
          error: this.#broken.get(seller)?.error ?? null,
        };
        let state: SellerState | undefined;
        try {
          state = await readState(seller);
          return { ...base, ...(await readSellerFigures(state, now)), unreadable: null };
        } catch (err) {
          return {
            ...base,
            lastRun: null,
            heldOffers: 0,
            failedOffers: 0,
            salesToday: 0,
            unreadable: errorMessage(err),
          };
        } finally {
          await state?.close();
        }
      }),
    );
    return renderFleetPage({
      replica: this.claim.holder,
      liveReplicas: this.#live,
      generatedAt: now,
      refreshSeconds: this.#opts.refreshSeconds ?? 15,
      trouble: this.#trouble,
      sellers,
    });
  }

  /** A seller's page: its daemon's when it runs here, else read from its state. null: no such seller. */
  async sellerPage(seller: string): Promise<string | null> {
    if (!this.#sellers.some((s) => s.seller === seller)) return null;
    const held = this.#held.get(seller);
    const own = held ? await held.runtime.daemon.statusPage() : null;
    if (own !== null) return own;
    const readState = this.#opts.readState;
    if (!readState) return null;
    const state = await readState(seller);
    try {
      const heldBy = this.#holderOf(seller, await this.#freshHolders());
      return renderStatusPage(await remoteSellerView(seller, state, heldBy, Date.now()));
    } finally {
      await state.close();
    }
  }

  /** /metrics: the process once, every seller held here under its seller label. */
  get registry(): DaemonMetrics['registry'] {
    return this.metrics.registry;
  }

  /** SIGTERM: no new claim, every seller here stops (finishing writes on the wire) and lets go of its lease. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#ticking;
    await Promise.all([...this.#held.keys()].map((s) => this.#drop(s)));
    try {
      await this.#opts.registry?.leave(this.claim.holder);
    } catch (err) {
      this.#opts.logger.warn({ err: errorMessage(err) }, 'replica: could not sign off (it expires on its own)');
    }
    await this.#health?.close();
  }
}

function hashOffset(s: string, n: number): number {
  if (n === 0) return 0;
  let h = 0;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % n;
}
