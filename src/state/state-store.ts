import type { OfferView } from './offer-view.ts';
import type {
  CapabilityRecord,
  ImageRecord,
  JournalEntry,
  JournalOp,
  JournalState,
  OfferEvent,
  OfferEventInput,
  OfferRecord,
  OfferSearchHit,
  RunRecord,
  LeaseClaim,
  SaleRecord,
  StateKind,
  WriterLease,
} from './records.ts';

/** The answer to a lease request: held until expiresAt (the store's clock), or who holds it instead. */
export type LeaseAttempt =
  | { readonly ok: true; readonly expiresAt: number; readonly epoch: number }
  | { readonly ok: false; readonly heldBy: WriterLease };

/** The answer to a renewal: renewed, or lost to heldBy (null: taken and let go since, the lease is free now). */
export type LeaseRenewal =
  | { readonly ok: true; readonly expiresAt: number }
  | { readonly ok: false; readonly heldBy: WriterLease | null };

/**
 * A change to one offer row; unspecified fields keep their value (or their default on insert). `title` is
 * written for searching (searchOffers) and not read back into an OfferRecord: a run never needs it.
 */
export type OfferRecordPatch = Partial<Omit<OfferRecord, 'kind' | 'externalId' | 'updatedAt'>> & {
  readonly title?: string | null;
};

/**
 * The state db as offersync uses it. Every method answers with a promise: PostgreSQL is a round trip away, and
 * the event loop (HTTP sockets, timers, lease heartbeats, /healthz) must run while it answers. Transactions are
 * explicit: `transaction(fn)` hands fn a store bound to one transaction; calls on it run inside it.
 */
export interface StateStore {
  // offers
  getOffer(kind: StateKind, externalId: string): Promise<OfferRecord | undefined>;
  listOffers(kind?: StateKind): Promise<OfferRecord[]>;
  /** The offers as a run's planning reads them (offer-view.ts). */
  offerView(): Promise<OfferView>;
  upsertOffer(kind: StateKind, externalId: string, patch: OfferRecordPatch): Promise<OfferRecord>;
  /**
   * A write's last step: journal entry `done` (if given) settled done and the offer upserted with the patch made
   * from its stored record (undefined: none), committed together.
   */
  applyOffer(
    kind: StateKind,
    externalId: string,
    patchOf: (stored: OfferRecord | undefined) => OfferRecordPatch,
    done?: number,
  ): Promise<void>;
  deleteOffer(kind: StateKind, externalId: string): Promise<void>;
  /** Many upserts in one transaction (adopting thousands of offers). */
  upsertOffers(rows: readonly { kind: StateKind; externalId: string; patch: OfferRecordPatch }[]): Promise<void>;

  // images
  getImage(sha256: string): Promise<ImageRecord | undefined>;
  putImage(rec: ImageRecord): Promise<void>;
  listImages(): Promise<ImageRecord[]>;

  // journal
  journalBegin(entry: {
    runId: string;
    op: JournalOp;
    kind: JournalEntry['kind'];
    keys: readonly string[];
    /** 'sent' when the write leaves as soon as the row is in: one statement, not two. Default 'pending'. */
    state?: 'pending' | 'sent';
  }): Promise<JournalEntry>;
  journalSet(id: number, state: JournalState, error?: string | null): Promise<void>;
  /** Entries still pending or sent: settled at start by reading the remote. */
  journalUnfinished(): Promise<JournalEntry[]>;
  /** Creates of these offers the journal holds done or sent (they may have made an offer), by external_id. */
  journalCreateCounts(kind: StateKind, externalIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * Retention, run after each run: keeps the newest runs (state.keepRuns) and the settled (done, failed)
   * journal entries of those runs. Unfinished entries are never pruned: they are settled at the next start.
   */
  pruneHistory(): Promise<{ runs: number; journal: number }>;

  // each offer's story (docs/architecture.md, History)
  /**
   * Appends events in the order given (one statement per few hundred, not one per event) and keeps each offer
   * they touch to its newest OFFER_EVENTS_KEPT events. Runs and journal pruning leave them alone.
   */
  recordOfferEvents(events: readonly OfferEventInput[]): Promise<void>;
  /** The offer's newest `limit` events, oldest first. */
  offerHistory(kind: StateKind, externalId: string, limit: number): Promise<OfferEvent[]>;
  /** The kinds under which this external_id has events or an offer row, in kind order. */
  historyKinds(externalId: string): Promise<StateKind[]>;
  /**
   * Offers whose external_id or title holds `query` (letter case ignored), at most `limit` (capped at
   * SEARCH_LIMIT_MAX): an external_id equal to it first, then those starting with it, then the rest, each in
   * kind and external_id order.
   */
  searchOffers(query: string, limit?: number): Promise<OfferSearchHit[]>;

  // capabilities
  getCapability(name: string): Promise<CapabilityRecord | undefined>;
  setCapability(name: string, usable: boolean, detail?: string | null): Promise<void>;
  listCapabilities(): Promise<CapabilityRecord[]>;

  // runs
  runStart(id: string, command: string): Promise<void>;
  runEnd(
    id: string,
    outcome: NonNullable<RunRecord['outcome']>,
    counts: Readonly<Record<string, number>>,
  ): Promise<void>;
  listRuns(limit: number): Promise<RunRecord[]>;

  // sales (kept here with PostgreSQL state; a sqlite state keeps them in sold.jsonl beside its file)
  recordSales(sales: readonly SaleRecord[]): Promise<void>;
  /** This seller's sales seen at or after sinceMs, oldest first, at most `limit` (default: all). */
  listSales(sinceMs: number, limit?: number): Promise<SaleRecord[]>;
  /** This seller's latest `limit` sales, newest first. */
  latestSales(limit: number): Promise<SaleRecord[]>;
  /** How many sales of this seller were seen at or after sinceMs. */
  countSales(sinceMs: number): Promise<number>;

  // meta: schema version, where list reads start, the marketplace clocks learnt, anything small
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /**
   * Meta every seller of this state db reads alike (what the marketplace allows this address), kept apart from
   * any seller's own: in a file, the file's one seller's; in PostgreSQL, under no seller.
   */
  getSharedMeta(key: string): Promise<string | undefined>;
  setSharedMeta(key: string, value: string): Promise<void>;

  // the writer lease (docs/architecture.md, Lease); writer-lease.ts builds waiting and the heartbeat on these
  /**
   * Takes or renews the lease for ttlMs; refused while another holder's lease is unexpired, unless that
   * holder is `takeOverFrom` (a holder proven dead). Judged by the store's own clock.
   */
  acquireLease(claim: LeaseClaim, ttlMs: number, takeOverFrom?: string): Promise<LeaseAttempt>;
  /** Renews the lease only while `holder` still holds it at `epoch` (expired or not, nobody took it since). */
  renewLease(holder: string, epoch: number, ttlMs: number): Promise<LeaseRenewal>;
  /** Lets go of the lease if `holder` still holds it (at `epoch`, when given); the next holder's epoch is higher. */
  releaseLease(holder: string, epoch?: number): Promise<void>;
  /** The lease as stored, expired or not; undefined when free (offersync status shows who holds it). */
  currentLease(): Promise<WriterLease | undefined>;

  /**
   * Runs fn in one transaction: committed when fn's promise resolves, rolled back when it rejects. Only the
   * store fn is given runs inside it; other callers wait for the transaction to end.
   */
  transaction<T>(fn: (tx: StateStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
